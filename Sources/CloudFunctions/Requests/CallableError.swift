import Foundation
import HTTPTypes

/// An error a callable (or blocking) function throws to answer the caller with a Firebase
/// error code, a message and optional details; the client SDKs surface all three.
///
/// ```swift
/// throw CallableError(.invalidArgument, "score must be between 0 and 1,000,000", details: ["score": 7e9])
/// ```
/// Any other error a handler throws answers `500 INTERNAL` without its text.
public struct CallableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The code.
    public var code: Code
    /// The message the caller sees.
    public var message: String
    /// Extra JSON the caller sees, if any.
    public var details: JSONValue?

    /// Creates an error.
    public init(_ code: Code, _ message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The Firebase callable error codes, as the client SDKs name them.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case cancelled
        case unknown
        case invalidArgument = "invalid-argument"
        case deadlineExceeded = "deadline-exceeded"
        case notFound = "not-found"
        case alreadyExists = "already-exists"
        case permissionDenied = "permission-denied"
        case unauthenticated
        case resourceExhausted = "resource-exhausted"
        case failedPrecondition = "failed-precondition"
        case aborted
        case outOfRange = "out-of-range"
        case unimplemented
        case `internal`
        case unavailable
        case dataLoss = "data-loss"

        /// The canonical status name on the wire, e.g. `INVALID_ARGUMENT`.
        public var status: String { rawValue.uppercased().replacingOccurrences(of: "-", with: "_") }

        /// The HTTP status the code answers with.
        public var httpStatus: HTTPResponse.Status {
            switch self {
            case .cancelled: HTTPResponse.Status(code: 499)
            case .unknown, .internal, .dataLoss: .internalServerError
            case .invalidArgument, .failedPrecondition, .outOfRange: .badRequest
            case .deadlineExceeded: .gatewayTimeout
            case .notFound: .notFound
            case .alreadyExists, .aborted: .conflict
            case .permissionDenied: .forbidden
            case .unauthenticated: .unauthorized
            case .resourceExhausted: .tooManyRequests
            case .unimplemented: .notImplemented
            case .unavailable: .serviceUnavailable
            }
        }

        /// The code of a wire status name such as `NOT_FOUND`.
        public init?(status: String) {
            guard let code = Code.allCases.first(where: { $0.status == status }) else { return nil }
            self = code
        }
    }

    /// The error as the wire carries it: `{"status", "message", "details"?}`.
    public var wireValue: JSONValue {
        var error: [String: JSONValue] = ["status": .string(code.status), "message": .string(message)]
        if let details { error["details"] = details }
        return .object(error)
    }

    /// The error a handler's unexpected failure becomes: nothing of it is shown.
    static let hidden = CallableError(.internal, "INTERNAL")
}
