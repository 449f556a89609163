import CloudFunctions
import Foundation

extension Message {
    /// Reads a message from client JSON as FCM does: camelCase or snake_case names, unknown
    /// fields and wrong value types refused, exactly one of `token`, `topic`, `condition`.
    ///
    /// - Parameters:
    ///   - json: the `Message` object.
    ///   - path: where the object sits in the request, for error messages.
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` with the FCM error details.
    package static func parseFCM(_ json: JSONValue, path: String = "message") throws(ServiceError) -> Message {
        try Message(canonical: FCMWireNormalizer.normalize(json, as: .message, path: path), path: path)
    }

    /// Builds a message from canonical (normalized) JSON: the oneof and recipient checks with
    /// FCM's wording, then `Message`'s own decoding (which picks the target).
    init(canonical: JSONValue, path: String) throws(ServiceError) {
        let fields = canonical.objectValue ?? [:]
        let set = ["token", "topic", "condition"].filter { fields[$0] != nil }
        if set.count > 1 {
            throw FCMErrorCode.invalidArgument(
                "Invalid value at '\(path)' (oneof), oneof field 'target' is already set. Cannot set '\(set[1])'",
                field: path)
        }
        if set.isEmpty { throw FCMErrorCode.invalidArgument("Recipient of the message is not set.", field: path) }
        do {
            self = try canonical.decode(as: Message.self)
        } catch {
            throw FCMErrorCode.invalidArgument("Invalid JSON payload received at '\(path)'.", field: path)
        }
    }
}
