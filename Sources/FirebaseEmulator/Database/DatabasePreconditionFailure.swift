import CloudFunctions
import Foundation

/// The payload of a failed conditional write (`if-match` did not match the data's ETag).
///
/// The REST layer answers `412 Precondition Failed` with ``value`` as the body and ``etag`` as
/// the `ETag` header, which is what the Admin SDKs' `set_if_unchanged` and `transaction` read.
/// It travels in ``ServiceError/details`` as `{"value": ..., "etag": "..."}`.
public struct DatabasePreconditionFailure: Sendable, Hashable, Codable {
    /// The message of the error.
    public static let message = "ETag mismatch: the data at this location has changed"

    /// The current data at the location (rendered).
    public var value: JSONValue
    /// The current ETag of the location.
    public var etag: String

    /// Creates a payload.
    public init(value: JSONValue, etag: String) {
        self.value = value
        self.etag = etag
    }

    /// Reads the payload back from an error thrown by a conditional write; `nil` for other errors.
    public init?(_ error: ServiceError) {
        guard error.httpStatus == 412, case .object(let details)? = error.details,
            case .string(let etag)? = details["etag"]
        else { return nil }
        self.init(value: details["value"] ?? .null, etag: etag)
    }

    /// The error: `FAILED_PRECONDITION`, HTTP 412, carrying this payload in `details`.
    public var error: ServiceError {
        ServiceError(.preconditionFailed, Self.message, details: ["value": value, "etag": .string(etag)])
    }
}
