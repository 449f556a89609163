import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOHTTP1
import Testing

/// The web console's routes: its files, what it asks the emulator first, the device list, and the
/// stream of changes that keeps it live. (The console itself is driven in a real browser by the
/// conformance suite's test_console.py.)
@Suite("Console routes")
struct ConsoleRoutesTests {
    static let owner: HTTPFields = [.authorization: "Bearer owner", .contentType: "application/json"]

    @Test("serves the page at / and its files with their types; nothing outside them")
    func files() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(String(buffer: response.body).contains(#"<script type="module" src="/__/console/app.js">"#))
                // Never framed by another site, whose clicks would reach the emulator as the console's.
                #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] == "frame-ancestors 'none'")
                #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            }
            for (file, type) in [("app.js", "text/javascript; charset=utf-8"), ("pages/events.js", "text/javascript; charset=utf-8"),
                ("console.css", "text/css; charset=utf-8"), ("icon.svg", "image/svg+xml")]
            {
                try await client.execute(uri: "/__/console/\(file)", method: .get) { response in
                    #expect(response.status == .ok, "\(file)")
                    #expect(response.headers[.contentType] == type)
                }
            }
            for missing in ["nothing.js", "../Routes/ConsoleRoutes.swift", "%2E%2E/Package.swift", ".hidden.js", "pages"] {
                try await client.execute(uri: "/__/console/\(missing)", method: .get) { response in
                    #expect(response.status == .notFound, "\(missing)")
                }
            }
            try await client.execute(uri: "/emulator/v1/info", method: .get) { response in
                let info = try JSONValue(parsing: Data(response.body.readableBytesView))
                #expect(info["project"] == "demo")
                #expect(info["databaseInstance"] == "demo-default-rtdb")
                #expect(info["services"]?.arrayValue?.count == 6)
            }
        }
    }

    @Test("lists devices with their platform and topics; an inbox answers for a percent-encoded token")
    func devices() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        let ios = try await emulator.messaging.registerDevice(platform: "ios")
        let web = try await emulator.messaging.registerDevice(platform: "web")
        _ = try await emulator.messaging.subscribe(tokens: [ios], to: "PUSH_RC")
        _ = try await emulator.messaging.send(Message(.topic("PUSH_RC"), data: ["CONFIG_STATE": "STALE"]))
        try await Application(router: EmulatorServer(emulator: emulator).router()).test(.router) { client in
            try await client.execute(uri: "/emulator/v1/projects/demo/devices", method: .get) { response in
                let devices = try #require(try JSONValue(parsing: Data(response.body.readableBytesView))["devices"]?.arrayValue)
                #expect(Set(devices.compactMap { $0["token"]?.stringValue }) == [ios, web])
                let listed = try #require(devices.first { $0["token"]?.stringValue == ios })
                #expect(listed["platform"] == "ios")
                #expect(listed["topics"] == ["PUSH_RC"])
            }
            let encoded = try #require(ios.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            #expect(encoded != ios)
            try await client.execute(uri: "/emulator/v1/projects/demo/devices/\(encoded)/messages", method: .get) { response in
                #expect(response.status == .ok)
                let messages = try JSONValue(parsing: Data(response.body.readableBytesView))["messages"]?.arrayValue
                #expect(messages?.first?["data"]?["CONFIG_STATE"] == "STALE")
            }
            try await client.execute(uri: "/emulator/v1/projects/demo/devices?limit=0", method: .get) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test("the change stream names the areas each commit changed")
    func changes() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        try await Application(router: EmulatorServer(emulator: emulator).router()).test(.live) { client in
            let port = try #require(client.port)
            try await SSETestClient.withStream(port: port, uri: "/emulator/v1/projects/demo/changes", headers: []) { reader in
                let head = try #require(try await reader.head())
                #expect(head.headers["Content-Type"] == ["text/event-stream"])
                #expect(try await reader.next() == SSEFrame(event: "", data: ""))  // ": connected"
                let template = try RemoteConfigTemplate.decode(from: Data(#"{"parameters": {"a": {"defaultValue": {"value": "1"}}}}"#.utf8))
                _ = try await emulator.remoteConfig.publish(template, ifMatch: "*")
                // The publish and the event it emits, in one commit.
                #expect(try await reader.next() == SSEFrame(event: "change", data: #"{"areas":["events","remoteConfig"]}"#))
                _ = try await emulator.messaging.registerDevice(platform: "android")
                #expect(try await reader.next() == SSEFrame(event: "change", data: #"{"areas":["messaging"]}"#))
                try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "a", value: 1)
                let frame = try #require(try await reader.next())
                #expect(frame.event == "change")
                #expect(frame.data.contains(#""database""#))
            }
        }
    }
}
