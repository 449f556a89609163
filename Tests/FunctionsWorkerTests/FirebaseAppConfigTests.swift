import CloudFunctions
import FirebaseHTTP
import Foundation
import FunctionsBuiltins
import FunctionsWorker
import Testing

@Suite("The Admin clients' configuration: FIREBASE_CONFIG, database URLs, the mode rule")
struct FirebaseAppConfigTests {
    @Test("FIREBASE_CONFIG is JSON inline when it starts with {, else a file's path")
    func inlineOrFile() throws {
        let json = #"{"projectId": "p", "databaseURL": "https://p-default-rtdb.firebaseio.com", "locationId": "us-central"}"#
        let inline = try FirebaseAppConfig(variable: "  " + json)
        #expect(inline == FirebaseAppConfig(projectID: "p", databaseURL: URL(string: "https://p-default-rtdb.firebaseio.com"),
            locationID: "us-central"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("firebase-config-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(json.utf8).write(to: file)
        #expect(try FirebaseAppConfig(variable: file.path) == inline)
        #expect(try FirebaseAppConfig.from([:]) == nil)
    }

    @Test("an invalid FIREBASE_CONFIG or base URL is refused with what is wrong", arguments: [
        (["FIREBASE_CONFIG": "{not json"], "FIREBASE_CONFIG is not a JSON object"),
        (["FIREBASE_CONFIG": "/nonexistent/config.json"], "FIREBASE_CONFIG's file /nonexistent/config.json cannot be read"),
        (["FIREBASE_CONFIG": #"{"projectId": 7}"#], "FIREBASE_CONFIG: projectId must be a string, not 7"),
        (["FIREBASE_CONFIG": #"{"databaseURL": "ftp://x"}"#], "FIREBASE_CONFIG: databaseURL 'ftp://x' is not an http(s) URL"),
        (["FIREBASE_CONFIG": #"{"databaseURL": "https://example.com/db"}"#], "names no instance"),
        (["FIREBASE_MESSAGING_URL_BASE": "fcm.example.com"], "FIREBASE_MESSAGING_URL_BASE 'fcm.example.com' is not an http(s) URL"),
    ])
    func refusals(environment: [String: String], message: String) {
        #expect {
            _ = try FunctionsWorker.adminClients(environment: environment)
        } throws: { "\($0)".contains(message) }
    }

    @Test("a database URL names its instance by host, or by ?ns= in any other form")
    func databaseURLs() throws {
        let credentials = FixedCredentials(project: "p")
        let cases: [(String, String?)] = [
            ("https://p-default-rtdb.firebaseio.com", nil),
            ("https://scores.europe-west1.firebasedatabase.app/", nil),
            ("http://127.0.0.1:9000/?ns=scores", "scores"),
        ]
        for (url, namespace) in cases {
            #expect(try HTTPDatabaseClient(databaseURL: URL(string: url)!, credentials: credentials).namespace == namespace)
        }
        #expect(throws: AdminHTTPError.self) {
            try HTTPDatabaseClient(databaseURL: URL(string: "http://127.0.0.1:9000/")!, credentials: credentials)
        }
    }

    @Test("any emulator variable makes every client an emulator's: the others are unavailable, never Google's")
    func emulatorMode() async throws {
        // GCE_METADATA_HOST: were the mode rule broken, no call would reach a real metadata server.
        let admin = try FunctionsWorker.adminClients(environment: [
            "FIREBASE_DATABASE_EMULATOR_HOST": "127.0.0.1:9", "GCLOUD_PROJECT": "p", "GCE_METADATA_HOST": "127.0.0.1:9",
        ])
        await #expect(throws: AdminClientError.self) { try await admin.messaging.send(PushConfig().message) }
        await #expect(throws: AdminClientError.self) { try await admin.remoteConfig.getTemplate() }
    }

    @Test("in production without a database URL or a project, the database says what would configure it")
    func noDatabase() async throws {
        let admin = try FunctionsWorker.adminClients(environment: ["GCE_METADATA_HOST": "127.0.0.1:9"])
        await #expect {
            _ = try await admin.database.get("scores")
        } throws: { "\($0)".contains("set FIREBASE_CONFIG's databaseURL") }
    }
}
