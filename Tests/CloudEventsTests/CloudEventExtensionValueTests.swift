import CloudEvents
import Testing

@Suite("CloudEvent: reading one extension attribute")
struct CloudEventExtensionValueTests {
    @Test("extensionValue(named:) answers what the extensions dictionary does, for few extensions and many")
    func agreesWithDictionary() {
        for count in [0, 1, 3, 8, 9, 20] {
            var extensions: [String: CloudEventAttributeValue] = [:]
            for index in 0..<count { extensions["ext\(index)"] = index.isMultiple(of: 2) ? .integer(index) : .string("v\(index)") }
            let event = CloudEvent(id: "1", source: "/s", type: "t", extensions: extensions)
            for name in (0...count).map({ "ext\($0)" }) + ["", "ext", "Ext0", "id"] {
                #expect(event.extensionValue(named: name) == extensions[name], "\(count) extensions, \(name)")
                if let value = extensions[name] { #expect(event[attribute: name] == value.canonicalString) }
            }
        }
    }
}
