import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import Foundation
import FunctionsWorker
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
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
                    body: ByteBuffer(string: Fixtures.remoteConfigBody)) { #expect($0.status == .ok, "\(uri)") }
            }
        }
        #expect(seen.all.count == 2)
        // Without a target, / is no function.
        let plain = try FunctionsWorker(functions: Fixtures.functions(Fixtures.Seen()))
        try await Application(router: plain.router()).test(.router) { client in
            try await client.execute(uri: "/", method: .post, headers: Fixtures.remoteConfigHeaders,
                body: ByteBuffer(string: Fixtures.remoteConfigBody)) { #expect($0.status == .notFound) }
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

    @Test("a request function's container (FUNCTION_SIGNATURE_TYPE=http, as the deploy targets write it) serves; the wrong signature exits 1")
    func requestSignature() async throws {
        var functions = FunctionRegistry()
        functions["hello"] = Https.onRequest { _, response in response.send("hello") }
        let wrong = Mutex("")
        let refused = await FunctionsWorker.main(functions: functions,
            environment: ["FUNCTION_TARGET": "hello", "FUNCTION_SIGNATURE_TYPE": "cloudevent", "PORT": "0"],
            standardOutput: { _ in }, standardError: { text in wrong.withLock { $0 += text } })
        #expect(refused == 1)
        #expect(wrong.withLock { $0 }.contains("'hello' answers HTTP requests (http)"))

        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        async let status = FunctionsWorker.main(functions: functions,
            environment: ["FUNCTION_TARGET": "hello", "FUNCTION_SIGNATURE_TYPE": "http", "PORT": "0"],
            standardOutput: { continuation.yield($0) }, standardError: { continuation.yield($0) })
        var iterator = lines.makeAsyncIterator()
        let ready = try #require(await iterator.next())
        let base = try #require(ready.wholeMatch(of: /ready: (http:\/\/127\.0\.0\.1:\d+)\n/)).output.1
        let (body, _) = try await URLSession.shared.data(from: URL(string: base + "/anything")!)
        #expect(String(decoding: body, as: UTF8.self) == "hello")
        var quit = URLRequest(url: URL(string: base + "/__/quitquitquit")!)
        quit.httpMethod = "POST"
        _ = try await URLSession.shared.data(for: quit)
        #expect(await status == 0)
    }

    @Test("with K_SERVICE set the worker listens on every interface; without it on 127.0.0.1")
    func containerAddress() async throws {
        for (environment, host) in [(["K_SERVICE": "scores", "PORT": "0"], "0.0.0.0"), (["PORT": "0"], "127.0.0.1")] {
            let ready = AsyncStream<String>.makeStream()
            let running = Task {
                await FunctionsWorker.main(functions: Fixtures.functions(Fixtures.Seen()), environment: environment,
                    standardOutput: { ready.continuation.yield($0) }, standardError: { _ in })
            }
            // In a container the log lines are JSON on standard output too; the ready line is among them.
            let line = try #require(await ready.stream.first { $0.hasPrefix("ready: ") })
            #expect(line.hasPrefix("ready: http://\(host):"), "\(line)")
            let port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":").last ?? ""))
            var quit = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/__/quitquitquit")!)
            quit.httpMethod = "POST"
            _ = try await URLSession.shared.data(for: quit)
            #expect(await running.value == 0)
        }
    }

    @Test("in a container, or with LOG_FORMAT=json, logs are Cloud Logging JSON lines with the function, event and trace")
    func structuredLogs() async throws {
        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        for (environment, json) in [
            (["K_SERVICE": "config", "PORT": "0", "GOOGLE_CLOUD_PROJECT": "demo-p"], true),
            (["LOG_FORMAT": "json", "PORT": "0", "GOOGLE_CLOUD_PROJECT": "demo-p"], true),
            (["K_SERVICE": "config", "LOG_FORMAT": "text", "PORT": "0"], false),
        ] {
            let output = AsyncStream<String>.makeStream()
            let all = Mutex("")
            let running = Task {
                await FunctionsWorker.main(functions: Fixtures.functions(Fixtures.Seen()), environment: environment,
                    standardOutput: { text in all.withLock { $0 += text }; output.continuation.yield(text) },
                    standardError: { _ in })
            }
            let ready = try #require(await output.stream.first { $0.hasPrefix("ready: ") })
            let base = ready.dropFirst("ready: ".count).trimmingCharacters(in: .whitespacesAndNewlines)
            var request = URLRequest(url: URL(string: base + "/fails")!)
            request.httpMethod = "POST"
            for field in Fixtures.remoteConfigHeaders { request.setValue(field.value, forHTTPHeaderField: field.name.rawName) }
            request.setValue("00-\(traceID)-00f067aa0ba902b7-01", forHTTPHeaderField: "traceparent")
            request.httpBody = Data(Fixtures.remoteConfigBody.utf8)
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 500)
            var quit = URLRequest(url: URL(string: base + "/__/quitquitquit")!)
            quit.httpMethod = "POST"
            _ = try await URLSession.shared.data(for: quit)
            #expect(await running.value == 0)
            let lines = all.withLock { $0 }.split(separator: "\n").filter { !$0.hasPrefix("ready: ") }
            let entries = lines.compactMap { try? JSONValue(parsing: Data($0.utf8)) }
            guard json else {
                #expect(entries.isEmpty, "\(lines)")
                continue
            }
            #expect(entries.count == lines.count, "every line is one JSON object: \(lines)")
            let failure = try #require(entries.first { $0["message"] == "function failed" })
            #expect(failure["severity"] == "ERROR")
            #expect(failure["function"] == "fails")
            #expect(failure["event.id"] == "bench-rc-0001")
            #expect(failure["logging.googleapis.com/labels"] == ["function": "fails"])
            #expect(failure["logging.googleapis.com/trace"] == .string("projects/demo-p/traces/\(traceID)"))
            #expect(failure["logging.googleapis.com/spanId"] == "00f067aa0ba902b7")
            #expect(failure["logging.googleapis.com/trace_sampled"] == true)
            #expect(failure["error"] == "boom")
            let time = try #require(failure["time"]?.stringValue)
            #expect(RFC3339Timestamp.date(from: time) != nil)
            #expect(entries.contains { $0["severity"] == "INFO" && $0["function"] == nil })
        }
        let bad = await FunctionsWorker.main(functions: Fixtures.functions(Fixtures.Seen()),
            environment: ["LOG_FORMAT": "xml", "PORT": "0"], standardOutput: { _ in }, standardError: { _ in })
        #expect(bad == 1)
    }

    @Test("shutdown answers 503 to new events, lets running handlers finish, then stops")
    func gracefulShutdown() async throws {
        let started = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        var functions = FunctionRegistry()
        functions["hold"] = RemoteConfig.onUpdate { _, _ in
            started.continuation.yield()
            for await _ in release.stream { break }
        }
        functions["quick"] = RemoteConfig.onUpdate { _, _ in }
        let worker = try FunctionsWorker(functions: functions)
        let port = AsyncStream<Int>.makeStream()
        let running = Task {
            try await worker.run(shutdownGracePeriod: .seconds(60)) { port.continuation.yield($0) }
        }
        let base = "http://127.0.0.1:\(try #require(await port.stream.first { _ in true }))"
        let held = Task { try await Self.post(base + "/hold") }
        _ = await started.stream.first { _ in true }
        #expect(try await Self.post(base + "/__/quitquitquit") == 200)
        #expect(try await Self.post(base + "/quick") == 503)
        #expect(try await Self.get(base + "/__/health") == 503)
        release.continuation.yield()
        #expect(try await held.value == 200)
        try await running.value
    }

    @Test("a streaming callable running at shutdown is waited for as a running event is, and its stream ends whole")
    func streamAtShutdown() async throws {
        let started = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        var functions = FunctionRegistry()
        functions["count"] = Https.onCall { (_: CallableRequest<Int>, response: CallableResponse) in
            try await response.sendChunk(1)
            started.continuation.yield()
            for await _ in release.stream { break }
            return 2
        }
        let messages = AsyncStream<String>.makeStream()
        let logger = Logger(label: "worker") { _ in MessageStreamLogHandler(continuation: messages.continuation) }
        let worker = try FunctionsWorker(functions: functions, tokens: EmulatorTokenVerifier(project: "demo"), logger: logger)
        let port = AsyncStream<Int>.makeStream()
        let running = Task {
            defer { messages.continuation.finish() }
            try await worker.run(shutdownGracePeriod: .seconds(60)) { port.continuation.yield($0) }
        }
        let base = "http://127.0.0.1:\(try #require(await port.stream.first { _ in true }))"
        let streamed = Task {
            var request = URLRequest(url: URL(string: base + "/count")!)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            request.httpBody = Data(#"{"data": 0}"#.utf8)
            return String(decoding: try await URLSession.shared.data(for: request).0, as: UTF8.self)
        }
        _ = await started.stream.first { _ in true }
        #expect(try await Self.post(base + "/__/quitquitquit") == 200)
        // The stream counts as running: shutdown waits for it (a worker that did not would stop
        // at once, and this stream of log messages would end without the line).
        let waiting = await messages.stream.first { $0.hasPrefix("shutting down: waiting") }
        #expect(waiting?.hasSuffix("for 1 running event(s)") == true)
        release.continuation.yield()
        #expect(try await streamed.value == "data: {\"message\":1}\n\ndata: {\"result\":2}\n\n")
        try await running.value
    }

    @Test("handlers still running after the grace period are cancelled and the worker stops")
    func gracePeriodEnds() async throws {
        let started = AsyncStream<Void>.makeStream()
        let cancelled = Mutex(false)
        var functions = FunctionRegistry()
        functions["stuck"] = RemoteConfig.onUpdate { _, _ in
            started.continuation.yield()
            do { try await Task.sleep(for: .seconds(3600)) } catch { cancelled.withLock { $0 = true } }
        }
        let worker = try FunctionsWorker(functions: functions)
        let port = AsyncStream<Int>.makeStream()
        let running = Task {
            try await worker.run(shutdownGracePeriod: .milliseconds(200)) { port.continuation.yield($0) }
        }
        let base = "http://127.0.0.1:\(try #require(await port.stream.first { _ in true }))"
        let stuck = Task { try? await Self.post(base + "/stuck") }
        _ = await started.stream.first { _ in true }
        #expect(try await Self.post(base + "/__/quitquitquit") == 200)
        try await running.value
        #expect(cancelled.withLock { $0 })
        // Not acknowledged with 2xx: a broker sends it again.
        #expect(await stuck.value.map { (200..<300).contains($0) } != true)
    }

    /// POSTs the Remote Config fixture event (or nothing, for /__ routes); returns the status.
    static func post(_ url: String) async throws -> Int {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        for field in Fixtures.remoteConfigHeaders { request.setValue(field.value, forHTTPHeaderField: field.name.rawName) }
        request.httpBody = Data(Fixtures.remoteConfigBody.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    static func get(_ url: String) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(from: URL(string: url)!)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

/// Sends every message logged to a stream.
struct MessageStreamLogHandler: LogHandler {
    let continuation: AsyncStream<String>.Continuation
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        continuation.yield(event.message.description)
    }
}
