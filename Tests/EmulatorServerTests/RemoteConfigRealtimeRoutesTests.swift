import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing

@Suite("Remote Config realtime stream", .timeLimit(.minutes(5)))
struct RemoteConfigRealtimeRoutesTests {
    static let path = "/v1/projects/123456789012/namespaces/firebase:streamFetchInvalidations?key=k"

    static func publish(_ server: EmulatorServer, value: String) async throws {
        let text = #"{"parameters": {"welcome": {"defaultValue": {"value": "\#(value)"}}}}"#
        try await server.emulator.remoteConfig.publish(RemoteConfigTemplate.decode(from: Data(text.utf8)), ifMatch: "*")
    }

    /// The iOS SDK's request (RCNConfigRealtime.m): gzipped lenient JSON.
    static func request(lastKnown: String) -> ByteBuffer {
        let body = TestGzip.compress(
            "{project:'123456789012', namespace:'firebase', lastKnownVersionNumber:'\(lastKnown)', "
                + "appId:'1:123456789012:ios:abcd', sdkVersion:'11.4.0', appInstanceId:'fid-1'}")
        var buffer = ByteBuffer(string: "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\nAccept: application/json\r\nContent-Encoding: gzip\r\n"
            + "X-Google-GFE-Can-Retry: yes\r\nContent-Length: \(body.count)\r\n\r\n")
        buffer.writeBytes(body)
        return buffer
    }

    /// Opens a raw connection, sends `request`, and runs `body` with a reader that returns what has
    /// arrived once it contains a marker; closes the connection afterwards.
    static func withStream<T: Sendable>(
        port: Int, request: ByteBuffer,
        _ body: (_ readUntil: (String) async throws -> String) async throws -> T
    ) async throws -> T {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(request)
            var iterator = inbound.makeAsyncIterator()
            var received = ""
            return try await body { marker in
                while !received.contains(marker) {
                    guard let chunk = try await iterator.next() else { break }
                    received += String(buffer: chunk)
                }
                return received
            }
        }
    }

    /// Waits (yielding, bounded) until the server has dropped every version stream.
    static func waitForNoStreams(_ server: EmulatorServer) async {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while server.emulator.remoteConfig.versionStreamCount > 0, ContinuousClock.now < deadline {
            await Task.yield()
        }
    }

    @Test("a client behind the current version gets it at once, as a chunked 200")
    func currentVersionAtOnce() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Self.publish(server, value: "one")
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let received = try await Self.withStream(port: port, request: Self.request(lastKnown: "0")) { readUntil in
                try await readUntil("}")
            }
            #expect(received.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(received.lowercased().contains("transfer-encoding: chunked"))
            #expect(received.contains(#"{"latestTemplateVersionNumber": "1"}"#))
            await Self.waitForNoStreams(server)
            #expect(server.emulator.remoteConfig.versionStreamCount == 0)
        }
    }

    @Test("a client at the current version hears of the next publish, and its stream ends when it disconnects")
    func nextPublish() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Self.publish(server, value: "one")
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let received = try await Self.withStream(port: port, request: Self.request(lastKnown: "1")) { readUntil in
                // The head is written once the route has subscribed; nothing else is sent yet.
                let head = try await readUntil("\r\n\r\n")
                #expect(!head.contains("latestTemplateVersionNumber"))
                #expect(server.emulator.remoteConfig.versionStreamCount == 1)
                try await Self.publish(server, value: "two")
                return try await readUntil("}")
            }
            #expect(received.contains(#"{"latestTemplateVersionNumber": "2"}"#))
            #expect(!received.contains(#""1"}"#))
            await Self.waitForNoStreams(server)
            #expect(server.emulator.remoteConfig.versionStreamCount == 0)
        }
    }

    @Test("a bad lastKnownVersionNumber gets 400 with the Google error body")
    func badVersion() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            try await client.execute(uri: Self.path, method: .post,
                body: ByteBuffer(string: #"{"lastKnownVersionNumber": "latest"}"#)) { response in
                #expect(response.status == .badRequest)
                let error = try JSONValue(parsing: Data(response.body.readableBytesView))["error"]
                #expect(error?["status"] == "INVALID_ARGUMENT")
                #expect(error?["code"] == 400)
            }
        }
    }
}
