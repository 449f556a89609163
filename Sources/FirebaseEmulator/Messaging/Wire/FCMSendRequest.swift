import Foundation
import CloudFunctions

/// The body of `POST /v1/projects/{p}/messages:send`: `{"message": ..., "validate_only": bool}`.
public struct FCMSendRequest: Sendable, Hashable, Codable {
    /// The message to send; an absent `message` is an empty one (refused: no recipient).
    public var message: Message
    /// Whether to validate without delivering (`validate_only` / `validateOnly`).
    public var validateOnly: Bool

    /// Creates a request.
    public init(message: Message, validateOnly: Bool = false) {
        self.message = message
        self.validateOnly = validateOnly
    }

    /// Decodes a request body (camelCase or snake_case).
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` with FCM details on unknown fields or wrong types.
    public static func parse(_ json: JSONValue) throws(ServiceError) -> FCMSendRequest {
        let canonical = try FCMWireNormalizer.normalize(json, as: .sendRequest)
        let message = try Message(canonical: canonical["message"] ?? .object([:]), path: "message")
        return FCMSendRequest(message: message, validateOnly: canonical["validateOnly"]?.boolValue ?? false)
    }

    /// Decodes a request body from UTF-8 JSON.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` when the body is not JSON or does not fit.
    public static func parse(_ data: Data) throws(ServiceError) -> FCMSendRequest {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw FCMErrorCode.invalidArgument("Invalid JSON payload received. Unexpected token.")
        }
        return try parse(json)
    }

    /// Decodes through the JSON `parse`; errors are `ServiceError`.
    public init(from decoder: any Decoder) throws {
        self = try FCMSendRequest.parse(JSONValue(from: decoder))
    }
}
