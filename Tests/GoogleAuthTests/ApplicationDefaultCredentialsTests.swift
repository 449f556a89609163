import CloudFunctions
import FirebaseHTTP
import Foundation
import GoogleAuth
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// Application default credentials found and used against local stand-ins of Google's token
/// endpoint, metadata server and an API.
@Suite("Application default credentials", .timeLimit(.minutes(1)))
struct ApplicationDefaultCredentialsTests {
    /// A folder of its own, removed afterwards.
    static func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("adc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(folder)
    }

    /// Runs `body` with the stand-in served, its base URL, and an environment that finds nothing
    /// on this machine: an empty gcloud folder, and the metadata server at `metadataHost` (by
    /// default the stand-in, which is one only with `metadata`).
    static func withStandIn(
        _ body: @Sendable (GoogleStandIn, URL, URL) async throws -> Void
    ) async throws {
        let standIn = try GoogleStandIn()
        try await withFolder { folder in
            try await Application(router: standIn.router()).test(.live) { client in
                let base = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
                standIn.state.withLock { $0.tokenURI = base.absoluteString + "/token" }
                try await body(standIn, base, folder)
            }
        }
    }

    static func write(_ json: JSONValue, to file: URL) throws {
        try json.serializedData().write(to: file)
    }

    @Test("a service account key file: a verified assertion, one token request for 20 calls, the key's project")
    func serviceAccountKey() async throws {
        try await Self.withStandIn { standIn, base, folder in
            let file = folder.appendingPathComponent("key.json")
            try Self.write(standIn.serviceAccountKey(base: base), to: file)
            let credentials = ApplicationDefaultCredentials(environment: [
                "GOOGLE_APPLICATION_CREDENTIALS": file.path, "CLOUDSDK_CONFIG": folder.path,
                "GCE_METADATA_HOST": "127.0.0.1:\(base.port!)",
            ])
            let api = AdminHTTP(baseURL: base, credentials: credentials)
            for _ in 0..<20 { try await api.send("POST", "/api/send", json: [:]) }
            #expect(try await credentials.projectID() == "key-project")
            let state = standIn.state.withLock { ($0.tokenRequests, $0.apiRequests.count, $0.refusals, $0.metadataTokenRequests) }
            #expect(state.0 == 1)
            #expect(state.1 == 20)
            #expect(state.2.isEmpty)
            #expect(state.3 == 0)
        }
    }

    @Test("project variables come before the key's project, FIREBASE_CONFIG's after them")
    func projectOrder() async throws {
        try await Self.withStandIn { standIn, base, folder in
            let file = folder.appendingPathComponent("key.json")
            try Self.write(standIn.serviceAccountKey(base: base), to: file)
            let environment = ["GOOGLE_APPLICATION_CREDENTIALS": file.path, "CLOUDSDK_CONFIG": folder.path]
            let cases: [([String: String], String?, String)] = [
                (["GOOGLE_CLOUD_PROJECT": "a", "GCLOUD_PROJECT": "b"], "c", "a"),
                (["GCLOUD_PROJECT": "b"], "c", "b"),
                ([:], "c", "c"),
                ([:], nil, "key-project"),
            ]
            for (variables, configured, expected) in cases {
                let credentials = ApplicationDefaultCredentials(
                    environment: environment.merging(variables) { $1 }, configuredProject: configured)
                #expect(try await credentials.projectID() == expected)
            }
        }
    }

    @Test("the metadata server: its project and its tokens, asked with Metadata-Flavor")
    func metadataServer() async throws {
        try await Self.withStandIn { standIn, base, folder in
            let credentials = ApplicationDefaultCredentials(environment: [
                "CLOUDSDK_CONFIG": folder.path, "GCE_METADATA_HOST": "127.0.0.1:\(base.port!)",
            ])
            #expect(try await credentials.projectID() == "metadata-project")
            let api = AdminHTTP(baseURL: base, credentials: credentials)
            for _ in 0..<3 { try await api.send("POST", "/api/send") }
            let state = standIn.state.withLock { ($0.metadataTokenRequests, $0.apiRequests.count, $0.refusals) }
            #expect(state.0 == 1)
            #expect(state.1 == 3)
            #expect(state.2.isEmpty)
        }
    }

    @Test("gcloud's user credentials: the refresh grant, the quota project on each call, gcloud's configured project")
    func gcloudUserCredentials() async throws {
        try await Self.withStandIn { standIn, base, folder in
            try Self.write([
                "type": "authorized_user", "client_id": "user-client", "client_secret": "user-secret",
                "refresh_token": "user-refresh", "quota_project_id": "billed-project",
                "token_uri": .string(base.absoluteString + "/token"),
            ], to: folder.appendingPathComponent("application_default_credentials.json"))
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("configurations"),
                withIntermediateDirectories: true)
            try Data("work\n".utf8).write(to: folder.appendingPathComponent("active_config"))
            try Data("[core]\naccount = ada@example.com\nproject = laptop-project\n".utf8)
                .write(to: folder.appendingPathComponent("configurations/config_work"))
            let credentials = ApplicationDefaultCredentials(environment: ["CLOUDSDK_CONFIG": folder.path])
            try await AdminHTTP(baseURL: base, credentials: credentials).send("POST", "/api/send")
            #expect(try await credentials.projectID() == "laptop-project")
            let state = standIn.state.withLock { ($0.tokenRequests, $0.apiRequests.map(\.quotaProject), $0.refusals) }
            #expect(state.0 == 1)
            #expect(state.1 == ["billed-project"])
            #expect(state.2.isEmpty)
        }
    }

    @Test("no credentials anywhere: the error names each source tried and why it failed")
    func noCredentials() async throws {
        // The stand-in's API routes answer 404 without Metadata-Flavor: not a metadata server.
        let router = Router()
        try await Self.withFolder { folder in
            try await Application(router: router).test(.live) { client in
                let credentials = ApplicationDefaultCredentials(environment: [
                    "CLOUDSDK_CONFIG": folder.path, "GCE_METADATA_HOST": "127.0.0.1:\(try #require(client.port))",
                ])
                for _ in 0..<2 {
                    let error = try await #require(throws: CredentialsError.self) { try await credentials.accessToken() }
                    #expect(error.attempts.map(\.source) == [
                        "GOOGLE_APPLICATION_CREDENTIALS",
                        "gcloud's application default credentials (\(folder.path)/application_default_credentials.json)",
                        "the metadata server (127.0.0.1:\(try #require(client.port)))",
                    ])
                    #expect(error.attempts.map(\.reason).first == "not set")
                    #expect(error.attempts.last?.reason.contains("not a metadata server") == true)
                }
                await #expect(throws: CredentialsError.self) { try await credentials.projectID() }
            }
        }
    }

    @Test("a key file that does not parse, or whose key is not one: the reason, and nothing of the key")
    func badKeyFiles() async throws {
        try await Self.withStandIn { standIn, base, folder in
            var key = standIn.serviceAccountKey(base: base).objectValue ?? [:]
            let pem = key["private_key"]?.stringValue ?? ""
            key["private_key"] = .string(String(pem.dropLast(200)))
            let broken = JSONValue.object(key)
            let cases: [(Data, String)] = [
                (Data(pem.utf8), "not a JSON object"),
                (broken.serializedData(), "private_key is not an RSA private key"),
                (Data(#"{"type": "external_account", "audience": "x"}"#.utf8), "type 'external_account' are not supported"),
                (Data(#"{"type": "authorized_user", "client_id": "c", "client_secret": "s", "refresh_token": "r", "token_uri": "http://oauth.example.com/token"}"#.utf8),
                    "token_uri is not an https URL (http only for this machine)"),
            ]
            for (contents, reason) in cases {
                let file = folder.appendingPathComponent("key.json")
                try contents.write(to: file)
                let credentials = ApplicationDefaultCredentials(environment: [
                    "GOOGLE_APPLICATION_CREDENTIALS": file.path, "CLOUDSDK_CONFIG": folder.path,
                ])
                let error = try await #require(throws: CredentialsError.self) { try await credentials.accessToken() }
                #expect(error.attempts.count == 1)
                #expect(error.description.contains("GOOGLE_APPLICATION_CREDENTIALS (\(file.path))"))
                #expect(error.description.contains(reason))
                #expect(!error.description.contains("PRIVATE KEY") && !error.description.contains(String(pem.dropFirst(40).prefix(40))))
            }
            #expect(standIn.state.withLock { $0.tokenRequests } == 0)
        }
    }

    @Test("a token endpoint that refuses the assertion: the call fails with the endpoint's reason")
    func tokenEndpointFailures() async throws {
        try await Self.withStandIn { standIn, base, folder in
            // Signed for another audience than the endpoint expects.
            standIn.state.withLock { $0.tokenURI = "https://oauth2.googleapis.com/token" }
            let file = folder.appendingPathComponent("key.json")
            try Self.write(standIn.serviceAccountKey(base: base), to: file)
            let credentials = ApplicationDefaultCredentials(environment: [
                "GOOGLE_APPLICATION_CREDENTIALS": file.path, "CLOUDSDK_CONFIG": folder.path,
            ])
            let error = try await #require(throws: CredentialsError.self) {
                try await AdminHTTP(baseURL: base, credentials: credentials).send("POST", "/api/send")
            }
            #expect(error.description.contains("invalid_grant"))
            #expect(error.description.contains("service account \(standIn.clientEmail)"))
            #expect(standIn.state.withLock { $0.apiRequests.isEmpty })
        }
    }
}
