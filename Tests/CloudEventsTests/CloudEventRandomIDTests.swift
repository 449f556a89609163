import CloudEvents
import Foundation
import Testing

@Suite("CloudEvent.randomID")
struct CloudEventRandomIDTests {
    @Test("gives version 4 UUIDs in UUID().uuidString's form, each one new")
    func versionFourUUIDs() throws {
        let ids = (0..<1000).map { _ in CloudEvent.randomID() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let uuid = try #require(UUID(uuidString: id), "\(id) is not a UUID")
            #expect(uuid.uuidString == id)
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4, "version of \(id)")
            #expect(bytes[8] >> 6 == 0b10, "variant of \(id)")
        }
        // Every other bit varies: over 1,000 ids, each random bit is set in some and clear in others.
        let fixed = (0..<16).map { index -> UInt8 in
            let values = ids.map { withUnsafeBytes(of: UUID(uuidString: $0)!.uuid) { $0[index] } }
            return values.reduce(0xFF, &) | ~values.reduce(0, |)
        }
        #expect(fixed == [0, 0, 0, 0, 0, 0, 0xF0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0])
    }
}
