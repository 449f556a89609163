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

    /// Builds a message from canonical (normalized) JSON.
    init(canonical: JSONValue, path: String) throws(ServiceError) {
        let fields = canonical.objectValue ?? [:]
        let set = ["token", "topic", "condition"].filter { fields[$0] != nil }
        if set.count > 1 {
            throw FCMErrorCode.invalidArgument(
                "Invalid value at '\(path)' (oneof), oneof field 'target' is already set. Cannot set '\(set[1])'",
                field: path)
        }
        let target: Target
        if let token = fields["token"]?.stringValue {
            target = .token(token)
        } else if let topic = fields["topic"]?.stringValue {
            target = .topic(topic)
        } else if let condition = fields["condition"]?.stringValue {
            target = .condition(condition)
        } else {
            throw FCMErrorCode.invalidArgument("Recipient of the message is not set.", field: path)
        }
        self.init(
            target,
            data: try Self.typed(fields["data"], path: path) ?? [:],
            notification: try Self.typed(fields["notification"], path: path),
            android: try Self.typed(fields["android"], path: path),
            apns: try Self.typed(fields["apns"], path: path),
            webpush: try Self.typed(fields["webpush"], path: path),
            fcmOptions: try Self.typed(fields["fcmOptions"], path: path)
        )
    }

    private static func typed<T: Decodable>(_ value: JSONValue?, path: String) throws(ServiceError) -> T? {
        guard let value else { return nil }
        do {
            return try value.decode(as: T.self)
        } catch {
            throw FCMErrorCode.invalidArgument("Invalid JSON payload received at '\(path)'.", field: path)
        }
    }
}
