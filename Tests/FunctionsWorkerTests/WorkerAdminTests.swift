import CloudFunctions
import Foundation
import FunctionsBuiltins
import FunctionsWorker
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Functions worker: manifest, health, quit and the entry point")
struct WorkerAdminTests {
    typealias Fixtures = WorkerFixtures

    @Test("serves the registry's manifest as a JSON body with content type text/yaml")
    func manifest() async throws {
        let functions = Fixtures.functions(Fixtures.Seen())
        let worker = try FunctionsWorker(functions: functions)
        try await Application(router: worker.router()).test(.router) { client in
            let response = try await client.execute(uri: "/__/functions.yaml", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/yaml")
            #expect(Data(response.body.readableBytesView) == functions.manifest().json())
            #expect(try FunctionsManifest(json: Data(response.body.readableBytesView)) == functions.manifest())
        }
    }

    @Test("answers health checks and quitquitquit (GET and POST) with 200")
    func healthAndQuit() async throws {
        let quits = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(Fixtures.Seen()))
        try await Application(router: worker.router(quit: { quits.add("quit") })).test(.router) { client in
            let health = try await client.execute(uri: "/__/health", method: .get)
            #expect(health.status == .ok)
            for method in [HTTPRequest.Method.post, .get] {
                let quit = try await client.execute(uri: "/__/quitquitquit", method: method)
                #expect(quit.status == .ok)
            }
        }
        #expect(quits.all == ["quit", "quit"])
    }

    @Test("refuses a registry with problems")
    func invalidRegistry() throws {
        var functions = FunctionRegistry()
        functions.use(PushConfig())
        functions.use(PushConfig())
        #expect(throws: RegistryError.self) { try FunctionsWorker(functions: functions) }
    }

    @Test("writes the manifest to FUNCTIONS_MANIFEST_OUTPUT_PATH and exits 0")
    func manifestOutput() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: path) }
        var functions = FunctionRegistry()
        functions.use(PushConfig())
        let output = Fixtures.Seen()
        let status = await FunctionsWorker.main(functions: functions,
            environment: ["FUNCTIONS_MANIFEST_OUTPUT_PATH": path.path],
            standardOutput: { output.add($0) }, standardError: { output.add($0) })
        #expect(status == 0)
        #expect(output.all.isEmpty)
        #expect(try Data(contentsOf: path) == functions.manifest().json())
    }

    @Test("prints one line on stderr and exits 1 for a registry with problems, a bad PORT or an unwritable path")
    func entryFailures() async throws {
        var duplicated = FunctionRegistry()
        duplicated.use(PushConfig())
        let valid = duplicated
        duplicated.use(PushConfig())
        let cases: [(FunctionRegistry, [String: String], String)] = [
            (duplicated, [:], "error: the functions cannot be registered: "),
            (valid, ["PORT": "http"], "error: PORT must be a number between 0 and 65535"),
            (valid, ["FUNCTIONS_MANIFEST_OUTPUT_PATH": "/nonexistent/dir/manifest.json"],
                "error: cannot write the manifest to /nonexistent/dir/manifest.json: "),
        ]
        for (functions, environment, prefix) in cases {
            let errors = Fixtures.Seen()
            let status = await FunctionsWorker.main(functions: functions, environment: environment,
                standardOutput: { _ in }, standardError: { errors.add($0) })
            #expect(status == 1)
            #expect(errors.all.count == 1)
            let line = try #require(errors.all.first)
            #expect(line.hasPrefix(prefix))
            #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false)
        }
    }

    @Test("serves on a free port, prints its ready line, and stops on quitquitquit")
    func live() async throws {
        var functions = FunctionRegistry()
        functions.use(PushConfig())
        let (lines, linesContinuation) = AsyncStream.makeStream(of: String.self)
        async let status = FunctionsWorker.main(functions: functions, environment: ["PORT": "0"],
            standardOutput: { linesContinuation.yield($0) }, standardError: { linesContinuation.yield($0) })
        var iterator = lines.makeAsyncIterator()
        let ready = try #require(await iterator.next())
        let match = try #require(ready.wholeMatch(of: /ready: (http:\/\/127\.0\.0\.1:(\d+))\n/))
        #expect(Int(match.output.2)! > 0)
        let base = String(match.output.1)

        let (_, health) = try await URLSession.shared.data(from: URL(string: base + "/__/health")!)
        #expect((health as? HTTPURLResponse)?.statusCode == 200)
        var quit = URLRequest(url: URL(string: base + "/__/quitquitquit")!)
        quit.httpMethod = "POST"
        let (_, response) = try await URLSession.shared.data(for: quit)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(await status == 0)
    }
}
