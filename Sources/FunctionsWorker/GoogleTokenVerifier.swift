import CloudFunctions
import Crypto
import CryptoExtras
import FirebaseHTTP
import Foundation

/// Checks tokens as deployed functions must: an RS256 signature by one of Google's published
/// keys (fetched once and kept for the `max-age` their answer gives), then the issuer,
/// audience, subject and expiry (``TokenKind/checkClaims(_:project:now:)``).
///
/// ID tokens and blocking calls are signed with Firebase Authentication's keys; App Check
/// tokens with App Check's. An unknown key id fetches the keys again, at most once a minute.
/// Requests that find the keys due at once share one fetch; when it fails, the keys at hand
/// stay in use (Google publishes a key well before it signs with it) and the fetch is tried
/// again a minute later.
public struct GoogleTokenVerifier: TokenVerifier {
    /// Where Firebase Authentication publishes its keys (JWKS).
    public static let authenticationKeysURL =
        URL(string: "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")!
    /// Where Firebase App Check publishes its keys (JWKS).
    public static let appCheckKeysURL = URL(string: "https://firebaseappcheck.googleapis.com/v1/jwks")!

    /// Fetches a JWKS document: its body and how long it may be kept.
    public typealias Fetch = @Sendable (URL) async throws -> (body: Data, maxAge: Duration?)

    /// The project tokens must be for.
    public let project: String
    /// The time source for expiry and caching.
    public let clock: any BusClock
    private let authenticationKeys: KeySet
    private let appCheckKeys: KeySet

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - project: the project tokens must be for.
    ///   - authenticationKeys: the JWKS of ID tokens and blocking calls.
    ///   - appCheckKeys: the JWKS of App Check tokens.
    ///   - clock: the time source.
    ///   - fetch: how keys are fetched (an HTTP GET honouring `Cache-Control: max-age` by default).
    public init(
        project: String,
        authenticationKeys: URL = authenticationKeysURL,
        appCheckKeys: URL = appCheckKeysURL,
        clock: any BusClock = SystemClock(),
        fetch: @escaping Fetch = GoogleTokenVerifier.httpFetch
    ) {
        self.project = project
        self.clock = clock
        self.authenticationKeys = KeySet(url: authenticationKeys, fetch: fetch, clock: clock)
        self.appCheckKeys = KeySet(url: appCheckKeys, fetch: fetch, clock: clock)
    }

    public func verify(_ token: String, as kind: TokenKind) async throws(TokenError) -> [String: JSONValue] {
        let jwt = try JSONWebToken(token)
        guard jwt.header["alg"]?.stringValue == "RS256" else {
            throw TokenError("the token is not signed with RS256 (alg '\(jwt.header["alg"]?.stringValue ?? "")')")
        }
        guard let kid = jwt.header["kid"]?.stringValue else { throw TokenError("the token names no key (kid)") }
        let keys = kind == .appCheck ? appCheckKeys : authenticationKeys
        let key = try await keys.key(kid)
        let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature)
        guard key.isValidSignature(signature, for: SHA256.hash(data: jwt.signingInput), padding: .insecurePKCS1v1_5)
        else { throw TokenError("the token's signature does not verify") }
        try kind.checkClaims(jwt.claims, project: project, now: clock.now)
        return jwt.claims
    }

    /// GETs a URL, reading `max-age` from `Cache-Control`.
    public static let httpFetch: Fetch = { url in
        let response = try await HTTPExchange.send("GET", url, timeout: .seconds(10))
        guard (200..<300).contains(response.status) else {
            throw TokenError("fetching \(url) answered \(response.status)")
        }
        let maxAge = response.headers["cache-control"].flatMap { header in
            header.split(separator: ",").lazy.compactMap { part -> Duration? in
                let pair = part.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "max-age",
                    let seconds = Int(pair[1].trimmingCharacters(in: .whitespaces))
                else { return nil }
                return .seconds(seconds)
            }.first
        }
        return (response.body, maxAge)
    }

    /// One JWKS: the keys by id, and until when they may be used.
    actor KeySet {
        let url: URL
        let fetch: Fetch
        let clock: any BusClock
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        var expiry = Date.distantPast
        var lastFetch = Date.distantPast
        /// The fetch on its way, which every request that needs the keys meanwhile awaits.
        var fetching: Task<(body: Data, maxAge: Duration?), any Error>?

        init(url: URL, fetch: @escaping Fetch, clock: any BusClock) {
            self.url = url
            self.fetch = fetch
            self.clock = clock
        }

        func key(_ kid: String) async throws(TokenError) -> _RSA.Signing.PublicKey {
            let now = clock.now
            let stale = now >= expiry || (keys[kid] == nil && now.timeIntervalSince(lastFetch) >= 60)
            if stale {
                do {
                    try await refresh(now: now)
                } catch {
                    guard let key = keys[kid] else { throw error }
                    return key
                }
            }
            guard let key = keys[kid] else { throw TokenError("the token's key '\(kid)' is not one of Google's keys") }
            return key
        }

        private func refresh(now: Date) async throws(TokenError) {
            lastFetch = now
            let task = fetching ?? Task { [fetch, url] in try await fetch(url) }
            fetching = task
            defer { if fetching == task { fetching = nil } }
            let body: Data
            let maxAge: Duration?
            do {
                (body, maxAge) = try await task.value
            } catch {
                keepKeysAtHand(now: now)
                throw TokenError("cannot fetch the public keys from \(url): \(error)")
            }
            guard let entries = (try? JSONValue(parsing: body))?["keys"]?.arrayValue else {
                keepKeysAtHand(now: now)
                throw TokenError("the public keys at \(url) are not a JWKS document")
            }
            var fresh: [String: _RSA.Signing.PublicKey] = [:]
            for entry in entries {
                guard entry["kty"]?.stringValue == "RSA", let kid = entry["kid"]?.stringValue,
                    let n = entry["n"]?.stringValue.flatMap(JSONWebToken.base64URLDecode),
                    let e = entry["e"]?.stringValue.flatMap(JSONWebToken.base64URLDecode),
                    let key = try? _RSA.Signing.PublicKey(n: n, e: e)
                else { continue }
                fresh[kid] = key
            }
            keys = fresh
            expiry = now.addingTimeInterval(maxAge?.seconds ?? 3600)
        }

        /// After a failed fetch, the keys at hand are used for another minute before the next try.
        private func keepKeysAtHand(now: Date) {
            if !keys.isEmpty { expiry = max(expiry, now.addingTimeInterval(60)) }
        }
    }
}
