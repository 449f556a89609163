import Foundation
import CloudFunctions

/// Who an FCM message goes to: one device, a topic's subscribers, or a topic condition.
public enum FCMMessageTarget: Sendable, Hashable {
    /// One registration token.
    case token(String)
    /// A topic name, without the `/topics/` prefix.
    case topic(String)
    /// A condition such as `'A' in topics && 'B' in topics`.
    case condition(String)
}
