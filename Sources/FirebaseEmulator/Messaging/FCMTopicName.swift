import Foundation
import CloudFunctions

/// FCM topic names: the optional `/topics/` prefix and the character rule `[a-zA-Z0-9-_.~%]+`.
///
/// No length limit is enforced: the SDKs enforce none and the service's is not documented.
package enum FCMTopicName {
    /// The prefix clients may put before a topic name.
    public static let prefix = "/topics/"

    /// The name without a leading `/topics/`.
    public static func stripPrefix(_ topic: String) -> String {
        topic.hasPrefix(prefix) ? String(topic.dropFirst(prefix.count)) : topic
    }

    /// Whether `name` (already without prefix) is a valid topic name.
    public static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy(isAllowed)
    }

    /// Whether a character may appear in a topic name.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "~", "%": true
        default: false
        }
    }

    /// Strips the prefix and checks the name.
    ///
    /// - Parameters:
    ///   - topic: the topic as the client sent it.
    ///   - field: the request field, for the error's field violation.
    /// - Returns: the name without prefix.
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` (FCM details) when the name is malformed.
    public static func validated(_ topic: String, field: String = "message.topic") throws(ServiceError) -> String {
        let name = stripPrefix(topic)
        guard isValid(name) else {
            throw FCMErrorCode.invalidArgument(
                "Invalid topic name \"\(name)\": topic names must match [a-zA-Z0-9-_.~%]+.", field: field)
        }
        return name
    }
}
