import Foundation
import CloudFunctions

/// The Realtime Database error texts this module produces, as `ServiceError`s.
///
/// The REST layer renders `message` as the body `{"error": "<message>"}` with `httpStatus`.
enum DatabaseErrorMessage {
    /// The body of a write could not be parsed (the REST layer uses this for bad JSON).
    static let unparsableData = "Invalid data; couldn't parse JSON object, array, or value."

    /// A path segment that is not a valid key.
    static func invalidPathSegment(_ segment: String, reason: String) -> ServiceError {
        ServiceError(.invalidArgument, "Invalid path: segment \"\(segment)\" \(reason)")
    }

    /// A path deeper than the maximum depth.
    static func pathTooDeep(_ depth: Int) -> ServiceError {
        ServiceError(.invalidArgument,
            "Invalid path: depth \(depth) exceeds the maximum of \(DatabasePath.maximumDepth) levels")
    }

    /// A key in written data that is not valid.
    static func invalidKey(_ key: String, reason: String) -> ServiceError {
        ServiceError(.invalidArgument, "Invalid key: \(key). \(reason)")
    }

    /// Written data that breaks a rule other than key syntax.
    static func invalidData(_ reason: String) -> ServiceError {
        ServiceError(.invalidArgument, "Invalid data; \(reason)")
    }

    /// A query parameter problem.
    static func invalidQuery(_ message: String) -> ServiceError {
        ServiceError(.invalidArgument, message)
    }
}
