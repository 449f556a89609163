import CloudFunctions
import FirebaseHTTP
import Foundation
import Hummingbird
import HummingbirdTesting
import ProcessSupport
import Synchronization
import Testing

/// How many calls a process has on their way to one server at once, and the open files that
/// takes.
@Suite("Admin calls over HTTP: connections and open files", .timeLimit(.minutes(1)))
struct AdminConnectionTests {
    /// Holds requests until `count` of them wait, then lets them all go, and every later one.
    final class Gate: Sendable {
        let count: Int
        private let state = Mutex<(held: [CheckedContinuation<Void, Never>], open: Bool, filled: Bool)>(([], false, false))

        init(count: Int) { self.count = count }

        /// Whether `count` requests were held at once.
        var filled: Bool { state.withLock { $0.filled } }

        func arrive() async {
            await withCheckedContinuation { continuation in
                let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    state.held.append(continuation)
                    if state.held.count == count { state.filled = true; state.open = true }
                    guard state.open else { return [] }
                    defer { state.held = [] }
                    return state.held
                }
                for waiter in released { waiter.resume() }
            }
        }

        /// Lets every request go, held or to come.
        func open() {
            let released = state.withLock { state in
                defer { state.held = []; state.open = true }
                return state.held
            }
            for waiter in released { waiter.resume() }
        }
    }

    @Test("40 handlers' writes to one server are all on their way at once, not 8 at a time")
    func writesSideBySide() async throws {
        // The server answers none of them until all 40 have arrived: calls queued behind a few
        // pooled connections would never arrive, and the suite's time limit would end the test.
        let gate = Gate(count: 40)
        let router = Router()
        router.put("**") { request, _ -> HTTPResponse.Status in
            _ = try await request.body.collect(upTo: 1 << 16)
            await gate.arrive()
            return .noContent
        }
        try await Application(router: router).test(.live) { client in
            // However the calls end, no request stays held: the server could not stop.
            defer { gate.open() }
            let base = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
            let database = HTTPDatabaseClient(baseURL: base, namespace: "demo")
            // Past the time limit, the held requests go, so that the test ends and fails.
            try await withTaskCancellationHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<gate.count {
                        group.addTask { try await database.set("scores/\(index)", .number(Double(index))) }
                    }
                    try await group.waitForAll()
                }
            } onCancel: {
                gate.open()
            }
        }
        #expect(gate.filled)
    }

    @Test("raising the open-file limit lifts the soft limit to the hard one")
    func openFiles() throws {
        let raised = try #require(OpenFileLimit.raise())
        let limits = try #require(OpenFileLimit.current)
        #expect(raised == limits.soft)
        #if canImport(Darwin)
        #expect(limits.soft >= min(limits.hard, 10_240))
        #else
        #expect(limits.soft == limits.hard)
        #endif
    }
}
