import CloudFunctions
import Foundation

/// An Admin client that calls Google or an emulator over ``AdminHTTP``, at a base URL.
public protocol AdminHTTPClient {
    /// Creates a client of `baseURL` acting as `credentials`.
    init(baseURL: URL, credentials: any AdminCredentials)
}

extension AdminHTTPClient {
    /// Creates a client of an emulator at `baseURL`, e.g. `http://127.0.0.1:4400`.
    public init(baseURL: URL, project: String, bearerToken: String = "owner") {
        self.init(baseURL: baseURL, credentials: FixedCredentials(project: project, token: bearerToken))
    }
}
