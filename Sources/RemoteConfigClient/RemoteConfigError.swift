import Foundation

/// What went wrong in a Remote Config client call.
public enum RemoteConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The client is backing off after failed fetches (or the backend throttled it) until `until`.
    case throttled(until: Date)
    /// The backend answered with an error status.
    case fetchFailed(status: Int, message: String)
    /// The backend could not be reached or answered something that is not a fetch response.
    case transport(String)
    /// A config value does not decode as the requested type.
    case valueNotDecodable(type: String, reason: String)
    /// A defaults file cannot be read.
    case invalidDefaults(String)

    public var description: String {
        switch self {
        case .throttled(let until): "fetches are throttled until \(until)"
        case .fetchFailed(let status, let message): "the fetch failed with HTTP \(status): \(message)"
        case .transport(let reason): "the fetch failed: \(reason)"
        case .valueNotDecodable(let type, let reason): "the value is not a \(type): \(reason)"
        case .invalidDefaults(let reason): "the defaults cannot be read: \(reason)"
        }
    }
}
