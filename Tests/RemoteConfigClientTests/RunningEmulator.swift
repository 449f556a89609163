import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import RemoteConfigClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An emulator serving HTTP on a free port for the duration of `body`.
struct RunningEmulator: Sendable {
    let emulator: Emulator
    let server: EmulatorServer
    let base: URL

    static func with(
        project: String = "demo",
        _ body: @Sendable (RunningEmulator) async throws -> Void
    ) async throws {
        let emulator = try Emulator(project: project, directory: nil)
        let server = EmulatorServer(emulator: emulator)
        try await server.withRunning { base in
            try await body(RunningEmulator(emulator: emulator, server: server, base: base))
        }
    }

    /// Publishes a template whose parameters have these default values; returns its version.
    @discardableResult
    func publish(_ values: [String: String]) async throws -> Int64 {
        let parameters = values.map { key, value in "\"\(key)\": {\"defaultValue\": {\"value\": \"\(value)\"}}" }
        let json = "{\"parameters\": {\(parameters.joined(separator: ", "))}}"
        let template = try RemoteConfigTemplate.decode(from: Data(json.utf8))
        return try await emulator.remoteConfig.publish(template, ifMatch: "*").template.versionNumber
    }

    /// A client of this emulator.
    func client(
        clock: TestClock,
        installation: RemoteConfigInstallation = RemoteConfigInstallation(),
        store: RemoteConfigStore = .inMemory()
    ) -> RemoteConfigClient {
        RemoteConfigClient(installation: installation, backend: base, project: emulator.project, store: store,
            clock: clock, random: { 0.5 })
    }

    /// An admin call to the emulator.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: String? = nil) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}
