import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("Remote Config downloadDefaults")
struct RemoteConfigDefaultsTests {
    static let template = RemoteConfigTemplate(
        parameters: [
            "b_key": RemoteConfigParameter(defaultValue: .value("x < y & \"z\" 'w'")),
            "a_key": RemoteConfigParameter(defaultValue: .value("1")),
            "skipped": RemoteConfigParameter(defaultValue: .useInAppDefault),
            "absent": RemoteConfigParameter(conditionalValues: ["c": .value("v")]),
        ],
        parameterGroups: [
            "g": RemoteConfigParameterGroup(parameters: [
                "c_key": RemoteConfigParameter(defaultValue: .value("line\nbreak"))
            ])
        ]
    )

    @Test("renders JSON as a flat sorted object of strings")
    func json() throws {
        let text = Self.template.renderDefaults(as: .json)
        #expect(text == #"{"a_key":"1","b_key":"x < y & \"z\" 'w'","c_key":"line\nbreak"}"#)
    }

    @Test("renders an Apple property list with escaping")
    func plist() {
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>a_key</key>
            \t<string>1</string>
            \t<key>b_key</key>
            \t<string>x &lt; y &amp; &quot;z&quot; &apos;w&apos;</string>
            \t<key>c_key</key>
            \t<string>line
            break</string>
            </dict>
            </plist>

            """
        #expect(Self.template.renderDefaults(as: .plist) == expected)
    }

    @Test("renders Android defaults XML")
    func xml() {
        let expected = """
            <?xml version="1.0" encoding="utf-8"?>
            <defaultsMap>
                <entry>
                    <key>a_key</key>
                    <value>1</value>
                </entry>
                <entry>
                    <key>b_key</key>
                    <value>x &lt; y &amp; &quot;z&quot; &apos;w&apos;</value>
                </entry>
                <entry>
                    <key>c_key</key>
                    <value>line
            break</value>
                </entry>
            </defaultsMap>

            """
        #expect(Self.template.renderDefaults(as: .xml) == expected)
    }

    @Test("reads back with Foundation's property-list parser")
    func readsBack() throws {
        let plist = try PropertyListSerialization.propertyList(
            from: Data(Self.template.renderDefaults(as: .plist).utf8), format: nil
        )
        #expect(plist as? [String: String] == ["a_key": "1", "b_key": "x < y & \"z\" 'w'", "c_key": "line\nbreak"])
    }

    @Test("renders empty templates")
    func empty() throws {
        #expect(RemoteConfigTemplate.empty.renderDefaults(as: .json) == "{}")
        #expect(
            RemoteConfigTemplate.empty.renderDefaults(as: .plist).hasSuffix(
                "<plist version=\"1.0\">\n<dict/>\n</plist>\n"))
        #expect(RemoteConfigTemplate.empty.renderDefaults(as: .xml).hasSuffix("<defaultsMap>\n</defaultsMap>\n"))
    }

    @Test("escapes control characters and carriage returns")
    func escaping() {
        #expect(RemoteConfigTemplate.xmlEscaped("a\r\u{1}b\tc") == "a&#13;\u{FFFD}b\tc")
    }

    @Test("reads the format query parameter")
    func formats() throws {
        #expect(try RemoteConfigDefaultsFormat(queryValue: "PLIST") == .plist)
        #expect(try RemoteConfigDefaultsFormat(queryValue: "JSON") == .json)
        #expect(try RemoteConfigDefaultsFormat(queryValue: "XML") == .xml)
        for bad in [nil, "", "FORMAT_UNSPECIFIED", "yaml"] {
            #expect(throws: ServiceError.self) { try RemoteConfigDefaultsFormat(queryValue: bad) }
        }
    }
}
