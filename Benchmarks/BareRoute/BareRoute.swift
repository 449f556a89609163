import Foundation
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

/// The ceiling `worker-vs-bare.py` measures the worker against: a bare Hummingbird 2 route that
/// reads the same binary-mode Remote Config CloudEvent (its body decoded into the version's
/// fields with Foundation's JSONDecoder) and answers 200, as the worker does. No CloudEvent
/// checks, no logger, no timeout, no context: only HTTP and the JSON.
@main
struct BareRoute {
    struct User: Decodable {
        var email: String?
    }

    /// The fields of a Remote Config template version, as the event's data carries them.
    struct Version: Decodable {
        var versionNumber: String
        var updateTime: String?
        var updateUser: User?
        var description: String?
        var updateOrigin: String?
        var updateType: String?
    }

    static func main() async throws {
        let port = Int(ProcessInfo.processInfo.environment["PORT"] ?? "0") ?? 0
        let router = Router()
        router.post("config") { request, context -> HTTPResponse.Status in
            let body = try await request.body.collect(upTo: 10 * 1024 * 1024)
            let version = try JSONDecoder().decode(Version.self, from: Data(buffer: body))
            guard !version.versionNumber.isEmpty else { return .badRequest }
            return .ok
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                let line = "ready: http://127.0.0.1:\(channel.localAddress?.port ?? port)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            })
        try await app.runService()
    }
}
