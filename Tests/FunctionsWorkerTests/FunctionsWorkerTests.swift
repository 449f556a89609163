import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import Foundation
import FunctionsBuiltins
import FunctionsWorker
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Functions worker")
struct FunctionsWorkerTests {
    /// The database event the Python Functions Framework accepted byte for byte
    /// (shared/reference/vectors/consumer-accepted.db.*).
    static let databaseHeaders: HTTPFields = [
        HTTPField.Name("ce-id")!: "bench-db-0001",
        HTTPField.Name("ce-source")!:
            "//firebasedatabase.googleapis.com/projects/_/locations/us-central1/instances/bench-default-rtdb",
        HTTPField.Name("ce-type")!: "google.firebase.database.ref.v1.written",
        HTTPField.Name("ce-specversion")!: "1.0",
        HTTPField.Name("ce-time")!: "2025-01-02T03:04:05.678Z",
        HTTPField.Name("ce-subject")!: "refs/items/abc",
        HTTPField.Name("ce-instance")!: "bench-default-rtdb",
        HTTPField.Name("ce-ref")!: "items/abc",
        HTTPField.Name("ce-firebasedatabasehost")!: "firebaseio.com",
        HTTPField.Name("ce-location")!: "us-central1",
        HTTPField.Name("ce-authtype")!: "admin",
        .contentType: "application/json",
    ]
    static let databaseBody = #"{"data":{"name":"old","count":1},"delta":{"count":2,"tag":"x"}}"#

    final class Seen: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "boom" }
    }

    static func functions(_ seen: Seen, clock: ManualClock = ManualClock()) -> FunctionRegistry {
        var functions = FunctionRegistry()
        functions["items"] = Database.ref("items/{id}").onWrite { change, context in
            seen.add("\(context.params["id"]!) \(change.after.val().serialized(sortedKeys: true))")
        }
        functions["config"] = RemoteConfig.onUpdate { version, context in
            seen.add("v\(version.versionNumber) \(context.eventId)")
        }
        functions["fails"] = RemoteConfig.onUpdate { _, _ in throw Failure() }
        functions["slow"] = RemoteConfig.onUpdate(.timeout(.seconds(5))) { _, _ in
            seen.add("slow started")
            try await clock.sleep(until: .distantFuture)
        }
        return functions
    }

    static let remoteConfigEvent = CloudEvent.remoteConfigUpdated(
        TemplateVersion(versionNumber: 5, updateTime: Date(timeIntervalSince1970: 1_700_000_000)),
        project: "demo",
        id: "rc-1"
    )

    static func fields(_ message: CloudEventHTTPMessage) -> HTTPFields {
        var headers = HTTPFields()
        for field in message.headers { headers[HTTPField.Name(field.name)!] = field.value }
        return headers
    }

    @Test("runs a function for a binary-mode CloudEvent and answers 204")
    func binaryMode() async throws {
        let seen = Seen()
        let worker = try FunctionsWorker(functions: Self.functions(seen))
        try await Application(router: worker.router()).test(.router) { client in
            try await client.execute(uri: "/items", method: .post, headers: Self.databaseHeaders,
                body: ByteBuffer(string: Self.databaseBody)) { response in
                #expect(response.status == .noContent)
            }
        }
        #expect(seen.all == [#"abc {"count":2,"name":"old","tag":"x"}"#])
    }

    @Test("runs a function for structured-mode and legacy events")
    func structuredAndLegacy() async throws {
        let seen = Seen()
        let worker = try FunctionsWorker(functions: Self.functions(seen))
        let structured = Self.remoteConfigEvent.structuredHTTPMessage()
        let legacy = #"{"context": {"eventId": "legacy-1", "eventType": "google.firebase.remoteconfig.update", "#
            + #""resource": {"name": "projects/demo"}, "timestamp": "2020-11-16T16:35:33.592Z"}, "#
            + #""data": {"versionNumber": "6", "updateType": "INCREMENTAL_UPDATE"}}"#
        try await Application(router: worker.router()).test(.router) { client in
            try await client.execute(uri: "/config", method: .post,
                headers: [.contentType: structured[header: "content-type"]!],
                body: ByteBuffer(bytes: structured.body)) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/config", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: legacy)) { response in
                #expect(response.status == .noContent)
            }
        }
        #expect(seen.all == ["v5 rc-1", "v6 legacy-1"])
    }

    @Test("answers 400 for a malformed event, 404 for an unknown function, 500 when the handler throws")
    func errors() async throws {
        let worker = try FunctionsWorker(functions: Self.functions(Seen()))
        let missingSource = {
            var headers = Self.databaseHeaders
            headers[HTTPField.Name("ce-source")!] = nil
            return headers
        }()
        try await Application(router: worker.router()).test(.router) { client in
            try await client.execute(uri: "/items", method: .post, headers: missingSource,
                body: ByteBuffer(string: Self.databaseBody)) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("ce-source"))
            }
            try await client.execute(uri: "/nope", method: .post, headers: Self.databaseHeaders,
                body: ByteBuffer(string: Self.databaseBody)) { response in
                #expect(response.status == .notFound)
            }
            let message = Self.remoteConfigEvent.binaryHTTPMessage()
            let headers = Self.fields(message)
            try await client.execute(uri: "/fails", method: .post, headers: headers,
                body: ByteBuffer(bytes: message.body)) { response in
                #expect(response.status == .internalServerError)
                #expect(response.headers[HTTPField.Name("X-Google-Status")!] == "error")
            }
        }
    }

    @Test("cancels a handler that outlives its timeout and answers 500")
    func timeout() async throws {
        let seen = Seen()
        let clock = ManualClock()
        let worker = try FunctionsWorker(functions: Self.functions(seen, clock: clock), clock: clock)
        let message = Self.remoteConfigEvent.binaryHTTPMessage()
        let headers = Self.fields(message)
        try await Application(router: worker.router()).test(.router) { client in
            async let status = client.execute(uri: "/slow", method: .post, headers: headers,
                body: ByteBuffer(bytes: message.body)) { $0.status }
            // The handler and the timeout both sleep on the clock once the invocation runs.
            while clock.sleeperCount < 2 { await Task.yield() }
            clock.advance(by: .seconds(5))
            let answered = try await status
            #expect(answered == .internalServerError)
        }
        #expect(seen.all == ["slow started"])
    }

    @Test("serves the manifest, health and quitquitquit")
    func adminRoutes() async throws {
        let functions = Self.functions(Seen())
        let quits = Seen()
        let worker = try FunctionsWorker(functions: functions)
        try await Application(router: worker.router(quit: { quits.add("quit") })).test(.router) { client in
            try await client.execute(uri: "/__/functions.yaml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/yaml")
                let manifest = try FunctionsManifest(json: Data(response.body.readableBytesView))
                #expect(manifest == functions.manifest())
            }
            try await client.execute(uri: "/__/health", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/__/quitquitquit", method: .post) { #expect($0.status == .ok) }
        }
        #expect(quits.all == ["quit"])
    }

    @Test("writes the manifest to FUNCTIONS_MANIFEST_OUTPUT_PATH and exits 0; bad registries exit 1")
    func manifestOutput() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: path) }
        var functions = FunctionRegistry()
        functions.use(PushConfig())
        let status = await FunctionsWorker.main(functions: functions,
            environment: ["FUNCTIONS_MANIFEST_OUTPUT_PATH": path.path], standardOutput: { _ in }, standardError: { _ in })
        #expect(status == 0)
        #expect(try FunctionsManifest(json: Data(contentsOf: path)) == functions.manifest())

        functions.use(PushConfig())
        let errors = Seen()
        let failed = await FunctionsWorker.main(functions: functions, environment: [:],
            standardOutput: { _ in }, standardError: { errors.add($0) })
        #expect(failed == 1)
        #expect(errors.all.first?.contains("a function named 'pushConfig' is already registered") == true)
    }

    @Test("serves on a free port and stops on quitquitquit")
    func live() async throws {
        let worker = try FunctionsWorker(functions: Self.functions(Seen()))
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        async let serving: Void = worker.run(port: 0) { portContinuation.yield($0) }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        #expect(port > 0)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/__/quitquitquit")!)
        request.httpMethod = "POST"
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        try await serving
    }
}
