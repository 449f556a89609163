import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Testing

@Suite("Remote Config realtime stream and shutdown", .timeLimit(.minutes(5)))
struct RemoteConfigRealtimeShutdownTests {
    @Test("a graceful shutdown ends an open stream with the last chunk instead of waiting for the client")
    func gracefulShutdown() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let group = ServiceGroup(
            services: [server.application { portContinuation.yield($0) }], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let port = try #require(await ports.first { _ in true })
            let request = RemoteConfigRealtimeRoutesTests.request(lastKnown: "0")
            let received = try await RemoteConfigRealtimeRoutesTests.withStream(port: port, request: request) {
                readUntil in
                _ = try await readUntil("\r\n\r\n")
                await group.triggerGracefulShutdown()
                return try await readUntil("0\r\n\r\n")
            }
            #expect(received.hasSuffix("\r\n0\r\n\r\n"))
            #expect(!received.contains("latestTemplateVersionNumber"))
            try await tasks.waitForAll()
        }
    }
}
