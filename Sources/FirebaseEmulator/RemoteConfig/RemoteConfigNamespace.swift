import CloudFunctions
import Foundation

/// A Remote Config namespace: `firebase` (the client template, the default) or `firebase-server`
/// (the server template), as in `/v1/projects/{p}/namespaces/{namespace}/remoteConfig`.
///
/// Template management accepts only those two. Client fetches may name any namespace (device SDKs
/// and other Firebase products fetch their own, e.g. `fireperf`); one that holds no template
/// answers `NO_TEMPLATE`.
public struct RemoteConfigNamespace: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The namespace as it appears in the URL.
    public var rawValue: String

    /// Creates a namespace from its URL form.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The client template, the namespace every route uses by default.
    public static let firebase = RemoteConfigNamespace(rawValue: "firebase")
    /// The server template (server-side rendering clients).
    public static let firebaseServer = RemoteConfigNamespace(rawValue: "firebase-server")

    /// The namespaces that hold templates an administrator can publish.
    public static let managed: [RemoteConfigNamespace] = [.firebase, .firebaseServer]

    /// Whether publishing to this namespace emits `remoteConfig.v1.updated` (only the client template
    /// does: the event type has no namespace attribute, and functions only see client templates).
    public var emitsEvents: Bool { self == .firebase }

    public var description: String { rawValue }

    /// Checks that template management may use this namespace.
    ///
    /// - Throws: `ServiceError.invalidArgument` for any namespace but `firebase` and `firebase-server`.
    func requireManaged() throws(ServiceError) {
        guard Self.managed.contains(self) else {
            throw ServiceError(.invalidArgument, 
                "Namespace '\(rawValue)' does not hold a template: use 'firebase' or 'firebase-server'")
        }
    }
}
