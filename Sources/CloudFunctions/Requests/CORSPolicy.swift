import Foundation
import HTTPTypes

/// Which browser origins may call a request function (cross-origin resource sharing).
public enum CORSPolicy: Sendable, Hashable {
    /// No CORS headers: browsers on other origins cannot read the answer.
    case disabled
    /// Any origin (the caller's origin is echoed back).
    case allowAll
    /// Only these origins, e.g. `["https://example.com"]`.
    case origins([String])

    /// The origin to allow for a request from `origin`, `nil` when none.
    func allowedOrigin(for origin: String?) -> String? {
        switch self {
        case .disabled: nil
        case .allowAll: origin ?? "*"
        case .origins(let allowed): origin.flatMap { allowed.contains($0) ? $0 : nil }
        }
    }

    /// Adds the CORS headers for a request to a response.
    func apply(to response: inout HTTPSResponse, for request: HTTPSRequest) {
        guard let allowed = allowedOrigin(for: request.headerFields[.origin]) else { return }
        response.headerFields[.accessControlAllowOrigin] = allowed
        response.headerFields[.vary] = "Origin"
    }

    /// The answer to a preflight (`OPTIONS`) request, `nil` when CORS is disabled.
    func preflight(_ request: HTTPSRequest) -> HTTPSResponse? {
        guard self != .disabled else { return nil }
        var response = HTTPSResponse(status: .noContent)
        apply(to: &response, for: request)
        response.headerFields[.accessControlAllowMethods] = "GET,HEAD,PUT,PATCH,POST,DELETE"
        if let headers = request.headerFields[.accessControlRequestHeaders] {
            response.headerFields[.accessControlAllowHeaders] = headers
        }
        response.headerFields[.accessControlMaxAge] = "3600"
        return response
    }
}
