import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import Foundation
import FunctionsWorker
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The worker as a serverless container runs it: `K_SERVICE`, `PORT`, `FUNCTION_TARGET`.
@Suite("Functions worker: the serverless container contract", .timeLimit(.minutes(2)))
struct WorkerContainerTests {
    typealias Fixtures = WorkerFixtures

    @Test("FUNCTION_TARGET serves that function at POST / as well as at its own path")
    func targetAtRoot() async throws {
        let seen = Fixtures.Seen()
        let worker = try FunctionsWorker(functions: Fixtures.functions(seen), target: "config")
        try await Application(router: worker.router()).test(.router) { client in
            for uri in ["/", "/config"] {
                try await client.execute(uri: uri, method: .post, headers: Fixtures.remoteConfigHeaders,
                    body: ByteBuffer(string: Fixtures.remoteConfigBody)) { #expect($0.status == .noContent, "\(uri)") }
            }
        }
        #expect(seen.all.count == 2)
        // Without a target, / is no function.
        let plain = try FunctionsWorker(functions: Fixtures.functions(Fixtures.Seen()))
        try await Application(router: plain.router()).test(.router) { client in
            try await client.execute(uri: "/", method: .post, headers: Fixtures.remoteConfigHeaders,
                body: ByteBuffer(string: Fixtures.remoteConfigBody)) { #expect($0.status != .noContent) }
        }
    }

    @Test("an unknown FUNCTION_TARGET or signature type exits 1 at once, naming the functions")
    func badTarget() async throws {
        let errors = Mutex("")
        let status = await FunctionsWorker.main(functions: Fixtures.functions(Fixtures.Seen()),
            environment: ["FUNCTION_TARGET": "nope", "PORT": "0"], standardOutput: { _ in },
            standardError: { text in errors.withLock { $0 += text } })
        #expect(status == 1)
        #expect(errors.withLock { $0 }.contains("FUNCTION_TARGET 'nope' is not a function of this binary; it has: items, gcf, config"))
        let signature = await FunctionsWorker.main(functions: Fixtures.functions(Fixtures.Seen()),
            environment: ["FUNCTION_SIGNATURE_TYPE": "http", "PORT": "0"], standardOutput: { _ in },
            standardError: { _ in })
        #expect(signature == 1)
    }

    @Test("with K_SERVICE set the worker listens on every interface; without it on 127.0.0.1")
    func containerAddress() async throws {
        for (environment, host) in [(["K_SERVICE": "scores", "PORT": "0"], "0.0.0.0"), (["PORT": "0"], "127.0.0.1")] {
            let ready = AsyncStream<String>.makeStream()
            let running = Task {
                await FunctionsWorker.main(functions: Fixtures.functions(Fixtures.Seen()), environment: environment,
                    standardOutput: { ready.continuation.yield($0) }, standardError: { _ in })
            }
            var lines = ready.stream.makeAsyncIterator()
            let line = try #require(await lines.next())
            #expect(line.hasPrefix("ready: http://\(host):"), "\(line)")
            let port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").last ?? ""))
            var quit = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/__/quitquitquit")!)
            quit.httpMethod = "POST"
            _ = try await URLSession.shared.data(for: quit)
            #expect(await running.value == 0)
        }
    }
}
