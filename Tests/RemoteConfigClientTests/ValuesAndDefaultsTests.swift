import Foundation
import RemoteConfigClient
import Testing

/// Defaults, values, their sources and conversions, Codable values and the property wrapper.
@Suite("Remote Config client: defaults and values")
struct ValuesAndDefaultsTests {
    static func client(_ clock: TestClock = TestClock()) -> RemoteConfigClient {
        RemoteConfigClient(backend: URL(string: "http://127.0.0.1:1")!, project: "demo", clock: clock)
    }

    struct Banner: Codable, Equatable, Sendable {
        var title: String
        var weight: Int
    }

    @Test("defaults of every kind read back as text with source default; unknown keys are static")
    func defaults() throws {
        let client = Self.client()
        try client.setDefaults([
            "text": "hello", "flag": true, "count": 42, "ratio": 0.25, "payload": Data("bytes".utf8),
            "banner": ["title": "Sale", "weight": 3],
        ])
        #expect(client["text"] == RemoteConfigValue("hello", source: .default))
        #expect(client["flag"].stringValue == "true")
        #expect(client["flag"].boolValue)
        #expect(client["count"].numberValue == 42)
        #expect(client["ratio"].numberValue == 0.25)
        #expect(client["payload"].dataValue == Data("bytes".utf8))
        #expect(client["banner"].stringValue == #"{"title":"Sale","weight":3}"#)
        #expect(try client["banner"].decoded(asType: Banner.self) == Banner(title: "Sale", weight: 3))
        #expect(client["missing"] == RemoteConfigValue("", source: .static))
        #expect(client.allKeys(from: .default) == ["banner", "count", "flag", "payload", "ratio", "text"])
        #expect(client.allKeys(from: .remote).isEmpty)
        #expect(client.allKeys(from: .static).isEmpty)
        #expect(throws: RemoteConfigError.self) { try client.setDefaults(["bad": Date.self]) }
    }

    @Test("Bool follows the SDKs' truthy strings; numbers and JSON parse or fall back", arguments: [
        ("1", true), ("true", true), ("TRUE", true), ("t", true), ("yes", true), ("Y", true), ("on", true),
        ("0", false), ("false", false), ("no", false), ("", false), ("2", false), ("truthy", false),
    ])
    func booleans(text: String, expected: Bool) {
        #expect(RemoteConfigValue(text, source: .remote).boolValue == expected)
    }

    @Test("number, JSON and decoding of values that are not what is asked")
    func conversions() {
        #expect(RemoteConfigValue("12.5", source: .remote).numberValue == 12.5)
        #expect(RemoteConfigValue("twelve", source: .remote).numberValue == 0)
        #expect(RemoteConfigValue("[1, 2]", source: .remote).jsonValue as? [Int] == [1, 2])
        #expect(RemoteConfigValue("{not json", source: .remote).jsonValue == nil)
        #expect {
            try RemoteConfigValue(#"{"title": "Sale"}"#, source: .remote).decoded(asType: Banner.self)
        } throws: { error in
            guard case .valueNotDecodable(let type, let reason) = error as? RemoteConfigError else { return false }
            return type == "Banner" && reason.contains("weight")
        }
    }

    @Test("the property wrapper reads text, Bool, numbers and Codable values, and falls back")
    func propertyWrapper() throws {
        let client = Self.client()
        try client.setDefaults(["title": "Welcome", "enabled": "yes", "limit": 7, "banner": #"{"title":"A","weight":1}"#,
            "broken": "{"])
        struct Settings {
            @RemoteConfigProperty var title: String
            @RemoteConfigProperty var enabled: Bool
            @RemoteConfigProperty var limit: Int
            @RemoteConfigProperty var banner: Banner
            @RemoteConfigProperty var broken: Banner
            @RemoteConfigProperty var missing: String
        }
        let fallback = Banner(title: "none", weight: 0)
        let settings = Settings(
            title: RemoteConfigProperty(key: "title", fallback: "?", client: client),
            enabled: RemoteConfigProperty(key: "enabled", fallback: false, client: client),
            limit: RemoteConfigProperty(key: "limit", fallback: 0, client: client),
            banner: RemoteConfigProperty(key: "banner", fallback: fallback, client: client),
            broken: RemoteConfigProperty(key: "broken", fallback: fallback, client: client),
            missing: RemoteConfigProperty(key: "missing", fallback: "fallback", client: client)
        )
        #expect(settings.title == "Welcome")
        #expect(settings.enabled)
        #expect(settings.limit == 7)
        #expect(settings.banner == Banner(title: "A", weight: 1))
        #expect(settings.broken == fallback)
        #expect(settings.missing == "fallback")
    }

    @Test("defaults load from the emulator's downloadDefaults in PLIST and JSON; bad files are refused")
    func defaultsFiles() async throws {
        try await RunningEmulator.with { running in
            try await running.publish(["color": "green", "enabled": "true"])
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("defaults-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            for format in ["PLIST", "JSON"] {
                let (status, data) = try await running.call("GET",
                    "/v1/projects/demo/remoteConfig:downloadDefaults?format=\(format)")
                #expect(status == 200)
                let file = folder.appendingPathComponent("defaults.\(format.lowercased())")
                try data.write(to: file)
                let client = Self.client()
                if format == "PLIST" { try client.setDefaults(fromPlist: file) } else { try client.setDefaults(fromJSON: file) }
                #expect(client["color"] == RemoteConfigValue("green", source: .default), "\(format)")
                #expect(client["enabled"].boolValue, "\(format)")
            }
            let bad = folder.appendingPathComponent("bad.json")
            try Data("[1, 2]".utf8).write(to: bad)
            #expect(throws: RemoteConfigError.self) { try Self.client().setDefaults(fromJSON: bad) }
            #expect(throws: RemoteConfigError.self) { try Self.client().setDefaults(fromPlist: bad) }
            #expect(throws: RemoteConfigError.self) {
                try Self.client().setDefaults(fromJSON: folder.appendingPathComponent("missing.json"))
            }
        }
    }
}
