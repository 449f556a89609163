import CloudFunctions
import FirebaseHTTP
import Foundation
import GoogleAuth
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@Suite("Admin calls refused with 401: one renewal, one more try", .timeLimit(.minutes(1)))
struct AdminHTTPRefusalTests {
    /// Credentials whose tokens are `token-1`, `token-2`, ... one per renewal.
    struct Counting: AdminCredentials {
        let cache: TokenCache
        let renewals: Renewals

        init() {
            let renewals = Renewals()
            self.renewals = renewals
            cache = TokenCache { AccessToken(value: "token-\(renewals.next())", expiresAt: .distantFuture) }
        }

        func projectID() async throws -> String { "p" }
        func accessToken() async throws -> AccessToken { try await cache.token() }
        func refused(_ token: AccessToken) async { cache.refused(token) }
    }

    /// The tokens a service was shown.
    final class Shown: Sendable {
        let tokens = Mutex<[String]>([])
    }

    final class Renewals: Sendable {
        private let count = Mutex(0)
        func next() -> Int { count.withLock { $0 += 1; return $0 } }
        var value: Int { count.withLock { $0 } }
    }

    /// Serves `POST /api` accepting only the tokens `accepted` says, recording each one shown.
    static func withService(
        accepting accepted: @escaping @Sendable (String) -> Bool,
        _ body: @Sendable (URL, Shown) async throws -> Void
    ) async throws {
        let shown = Shown()
        let router = Router()
        router.post("api") { request, _ -> Response in
            let token = String((request.headers[.authorization] ?? "").dropFirst("Bearer ".count))
            shown.tokens.withLock { $0.append(token) }
            return accepted(token) ? Response(status: .ok) : Response(status: .unauthorized)
        }
        try await Application(router: router).test(.live) { client in
            try await body(URL(string: "http://127.0.0.1:\(try #require(client.port))")!, shown)
        }
    }

    @Test("a refused token is renewed once and the call sent once more")
    func renewOnce() async throws {
        try await Self.withService(accepting: { $0 == "token-2" }) { base, shown in
            let credentials = Counting()
            try await AdminHTTP(baseURL: base, credentials: credentials).send("POST", "/api")
            try await AdminHTTP(baseURL: base, credentials: credentials).send("POST", "/api")
            #expect(shown.tokens.withLock { $0 } == ["token-1", "token-2", "token-2"])
            #expect(credentials.renewals.value == 2)
        }
    }

    @Test("a service that refuses the renewed token too: the 401 is the answer, after two tries")
    func refusedAgain() async throws {
        try await Self.withService(accepting: { _ in false }) { base, shown in
            let credentials = Counting()
            await #expect {
                try await AdminHTTP(baseURL: base, credentials: credentials).send("POST", "/api")
            } throws: { ($0 as? AdminHTTPError)?.status == 401 }
            #expect(shown.tokens.withLock { $0 } == ["token-1", "token-2"])
        }
    }

    @Test("fixed credentials are not sent again: the same token would be refused again")
    func fixedToken() async throws {
        try await Self.withService(accepting: { _ in false }) { base, shown in
            await #expect(throws: AdminHTTPError.self) { try await AdminHTTP(baseURL: base).send("POST", "/api") }
            #expect(shown.tokens.withLock { $0 } == ["owner"])
        }
    }
}
