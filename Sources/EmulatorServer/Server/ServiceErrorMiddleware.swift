import CloudFunctions
import FirebaseEmulator
import Hummingbird

/// Turns the services' errors into Firebase error bodies.
///
/// Google APIs (Remote Config, Identity Toolkit, FCM) answer
/// `{"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT", "details": [...]}}`;
/// the Realtime Database answers `{"error": "..."}`. A route picks the database form by
/// throwing a ``DatabaseHTTPError``.
struct ServiceErrorMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext

    func handle(_ request: Request, context: Context, next: EmulatorResponder) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServiceError {
            return .json(ServiceErrorMiddleware.googleBody(error), status: .init(code: error.httpStatus))
        } catch let error as DatabaseHTTPError {
            var body: JSONValue = ["error": .string(error.error.message)]
            if let value = error.currentValue { body = value }
            var response = Response.json(body, status: .init(code: error.error.httpStatus))
            if let etag = error.etag { response.headers[.eTag] = etag }
            return response
        }
    }

    /// The Google API error body of a service error.
    static func googleBody(_ error: ServiceError) -> JSONValue {
        var inner: [String: JSONValue] = [
            "code": .number(Double(error.httpStatus)),
            "message": .string(error.message),
            "status": .string(error.status),
        ]
        switch error.details {
        case .array(let details)?: inner["details"] = .array(details)
        case let details?: inner["details"] = .array([details])
        case nil: break
        }
        return ["error": .object(inner)]
    }
}

/// A Realtime Database error: rendered as `{"error": "..."}`, or, for a failed conditional
/// write, as the current value with its ETag.
struct DatabaseHTTPError: Error {
    let error: ServiceError
    var currentValue: JSONValue?
    var etag: String?
}
