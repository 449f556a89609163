import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A simulated device: a ``RemoteConfigClient`` plus an FCM registration token in the emulator's
/// Messaging, whose inbox stands in for the push channel. The app's launch fetches and activates.
public final class RemoteConfigDevice: Sendable {
    /// The app's Remote Config client.
    public let client: RemoteConfigClient
    /// The device's FCM registration token.
    public let token: String
    private let handled = Mutex(0)

    init(client: RemoteConfigClient, token: String) {
        self.client = client
        self.token = token
    }

    /// Registers `count` devices with the emulator, subscribes them to `topic` (if any), and
    /// gives each a client made by `makeClient` (its installation and store are the caller's).
    public static func register(
        count: Int,
        topic: String?,
        backend: URL,
        project: String,
        makeClient: (Int) throws -> RemoteConfigClient
    ) async throws -> [RemoteConfigDevice] {
        var devices: [RemoteConfigDevice] = []
        for index in 0..<count {
            let client = try makeClient(index)
            let answer = try await Self.call(backend, "POST", "/emulator/v1/projects/\(project)/devices",
                ["platform": client.installation.platform])
            guard let token = answer["token"] as? String else {
                throw RemoteConfigError.transport("the emulator registered no device token")
            }
            devices.append(RemoteConfigDevice(client: client, token: token))
        }
        if let topic, !devices.isEmpty {
            for start in stride(from: 0, to: devices.count, by: 1000) {
                let tokens = devices[start..<min(start + 1000, devices.count)].map(\.token)
                _ = try await Self.call(backend, "POST", "/iid/v1:batchAdd",
                    ["to": "/topics/\(topic)", "registration_tokens": tokens])
            }
        }
        return devices
    }

    /// Hands the messages that arrived since the last call to the app's `handleRemoteMessage`.
    ///
    /// - Returns: how many of them were `CONFIG_STATE` pings.
    @discardableResult
    public func receivePushes() async throws -> Int {
        let answer = try await Self.call(client.backend, "GET",
            "/emulator/v1/projects/\(client.project)/devices/\(token)/messages", nil)
        let messages = (answer["messages"] as? [[String: Any]] ?? []).map {
            ($0["data"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        }
        let total = messages.count
        let seen = handled.withLock { handled in
            defer { handled = max(handled, total) }
            return handled
        }
        return messages.dropFirst(seen).filter { client.handleRemoteMessage(data: $0) }.count
    }

    /// The app's next launch: fetch (skipping the cache when stale) and activate.
    @discardableResult
    public func launch() async -> RemoteConfigFetchAndActivateStatus {
        await client.fetchAndActivate()
    }

    private static func call(_ backend: URL, _ method: String, _ path: String, _ body: [String: Any]?)
        async throws -> [String: Any]
    {
        var request = URLRequest(url: URL(string: backend.absoluteString + path)!)
        request.httpMethod = method
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            let text = String(decoding: data.prefix(300), as: UTF8.self)
            throw RemoteConfigError.fetchFailed(status: status, message: text)
        }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }
}
