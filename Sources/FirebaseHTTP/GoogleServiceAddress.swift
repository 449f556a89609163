import CloudFunctions
import Foundation
import Synchronization

/// Where a Google API is reached: Google's own address, a fixed emulator address, or the
/// address this repository's emulator gives for one of Google's emulators (`GET /emulators`),
/// asked when first needed and again after a call could not connect (the emulator restarts it
/// on another port).
final class GoogleServiceAddress: Sendable {
    private enum Source: Sendable {
        case fixed(URL)
        /// Found by asking, again after a call could not connect.
        case found(@Sendable () async throws -> URL)
    }

    private let source: Source
    private let cached = Mutex<URL?>(nil)

    /// A fixed address.
    init(_ url: URL) { source = .fixed(url) }

    /// The address `find` gives, asked when first needed and after a call could not connect.
    init(foundBy find: @escaping @Sendable () async throws -> URL) { source = .found(find) }

    /// The address `GET {hub}/emulators` gives for `service` (`firestore`, `pubsub`).
    convenience init(hub: URL, service: String) {
        self.init(foundBy: {
            let answer = try await HTTPExchange.send("GET", hub.appendingPathComponent("emulators"), timeout: .seconds(10))
            let addresses = try JSONValue(parsing: answer.body)
            guard let host = addresses[service]?["host"]?.stringValue, let port = addresses[service]?["port"]?.numberValue
            else {
                throw AdminClientError(service: service,
                    remedy: "the emulator at \(hub.absoluteString) runs no \(service) emulator; deploy a function that "
                        + "triggers on it, or start the emulator with --\(service)")
            }
            return URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(Int(port))")!
        })
    }

    /// The base URL.
    func url() async throws -> URL {
        switch source {
        case .fixed(let url): return url
        case .found(let find):
            if let url = cached.withLock({ $0 }) { return url }
            let url = try await find()
            cached.withLock { $0 = url }
            return url
        }
    }

    /// Forgets the address found after a call to it could not connect.
    func forget() {
        cached.withLock { $0 = nil }
    }

    /// Runs `call` against the base URL; when it fails without an answer at an address the hub
    /// gave, asks the hub again, and tries once more only if the emulator has moved (so a call
    /// that may have arrived is never sent twice to the same place).
    func withURL<Result>(_ call: (URL) async throws -> Result) async throws -> Result {
        let url = try await url()
        do {
            return try await call(url)
        } catch where !(error is AdminHTTPError) && !(error is CancellationError) {
            guard case .found = source else { throw error }
            forget()
            let moved = try await self.url()
            guard moved != url else { throw error }
            return try await call(moved)
        }
    }
}
