import Foundation
import CloudFunctions

extension FCMMessage {
    /// Decodes a message from client JSON (camelCase or snake_case).
    ///
    /// - Parameters:
    ///   - json: the `Message` object.
    ///   - path: where the object sits in the request, for error messages.
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` for unknown fields, wrong value types and
    ///   `token`/`topic`/`condition` set together.
    public static func parse(_ json: JSONValue, path: String = "message") throws(ServiceError) -> FCMMessage {
        let canonical = try FCMWireNormalizer.normalize(json, as: .message, path: path)
        return try FCMMessage(canonical: canonical, path: path)
    }

    /// Builds a message from canonical (normalized) JSON.
    init(canonical: JSONValue, path: String) throws(ServiceError) {
        let fields = canonical.objectValue ?? [:]
        let targets = ["token", "topic", "condition"].filter { fields[$0] != nil }
        if targets.count > 1 {
            throw FCMErrorCode.invalidArgument(
                "Invalid value at '\(path)' (oneof), oneof field 'target' is already set. Cannot set '\(targets[1])'",
                field: path)
        }
        name = fields["name"]?.stringValue
        token = fields["token"]?.stringValue
        topic = fields["topic"]?.stringValue.map(FCMTopicName.stripPrefix)
        condition = fields["condition"]?.stringValue
        data = try Self.typed(fields["data"], path: path)
        notification = try Self.typed(fields["notification"], path: path)
        android = try Self.typed(fields["android"], path: path)
        webpush = try Self.typed(fields["webpush"], path: path)
        apns = try Self.typed(fields["apns"], path: path)
        fcmOptions = try Self.typed(fields["fcmOptions"], path: path)
    }

    private static func typed<T: Decodable>(_ value: JSONValue?, path: String) throws(ServiceError) -> T? {
        guard let value else { return nil }
        do {
            return try value.decode(as: T.self)
        } catch {
            throw FCMErrorCode.invalidArgument("Invalid JSON payload received at '\(path)'.", field: path)
        }
    }

    /// Decodes from client JSON through ``parse(_:path:)``; errors are `ServiceError`.
    public init(from decoder: any Decoder) throws {
        self = try FCMMessage.parse(JSONValue(from: decoder))
    }
}
