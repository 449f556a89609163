import Foundation

/// Checks the tokens callers of request functions present, returning their claims.
///
/// The worker picks one from its environment: ``EmulatorTokenVerifier`` when it runs under
/// the emulator (whose tokens are unsigned), Google's public keys when deployed.
public protocol TokenVerifier: Sendable {
    /// The claims of `token` once it is checked as a token of `kind`.
    ///
    /// - Throws: ``TokenError`` saying why the token is refused.
    func verify(_ token: String, as kind: TokenKind) async throws(TokenError) -> [String: JSONValue]
}

/// The kinds of token request functions check.
public enum TokenKind: Sendable, Hashable {
    /// A Firebase Authentication ID token (`Authorization: Bearer …` on callables).
    case idToken
    /// A Firebase App Check token (`X-Firebase-AppCheck` on callables).
    case appCheck
    /// The token Authentication sends a blocking function (`{"data": {"jwt": …}}`). Its audience
    /// is the address Authentication calls: the function's production URL
    /// (`https://{region}-{project}.cloudfunctions.net/{function}`), or, for a function that runs
    /// as a Cloud Run service of its own, the service's URL, which is where the call arrives
    /// (`receivedAt`, `https://` and the request's host and path). A token made for another
    /// function is refused.
    case blockingCall(function: String, region: String, receivedAt: String?)

    /// Checks the claims every token of this kind must have: issuer, audience, subject and
    /// expiry, for `project` at `now`.
    ///
    /// - Throws: ``TokenError`` naming the first claim that is wrong.
    public func checkClaims(_ claims: [String: JSONValue], project: String, now: Date) throws(TokenError) {
        let issuer = claims["iss"]?.stringValue ?? ""
        let audiences = claims["aud"].map { $0.arrayValue?.compactMap(\.stringValue) ?? [$0.stringValue ?? ""] } ?? []
        switch self {
        case .idToken:
            guard issuer == "https://securetoken.google.com/\(project)" else {
                throw TokenError("the token's issuer '\(issuer)' is not https://securetoken.google.com/\(project)")
            }
            guard audiences == [project] else { throw TokenError("the token's audience is not the project '\(project)'") }
            guard let subject = claims["sub"]?.stringValue, (1...128).contains(subject.count) else {
                throw TokenError("the token's subject must be a uid of 1 to 128 characters")
            }
        case .appCheck:
            guard issuer.hasPrefix("https://firebaseappcheck.googleapis.com/") else {
                throw TokenError("the App Check token's issuer '\(issuer)' is not Firebase App Check")
            }
            guard audiences.contains("projects/\(project)") else {
                throw TokenError("the App Check token is not for the project '\(project)'")
            }
            guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
                throw TokenError("the App Check token has no app id (sub)")
            }
        case .blockingCall(let function, let region, let receivedAt):
            guard issuer == "https://securetoken.google.com/\(project)" else {
                throw TokenError("the token's issuer '\(issuer)' is not https://securetoken.google.com/\(project)")
            }
            let production = BlockingProtocol.audience(project: project, region: region, function: function)
            let addresses = [production, receivedAt].compactMap { $0.map(Self.withoutTrailingSlash) }
            guard audiences.count == 1, addresses.contains(Self.withoutTrailingSlash(audiences[0])) else {
                throw TokenError("the token's audience is not this function (\(addresses.joined(separator: " or ")))")
            }
        }
        guard let expiry = claims["exp"]?.numberValue else { throw TokenError("the token has no expiry (exp)") }
        guard Date(timeIntervalSince1970: expiry) > now else { throw TokenError("the token has expired") }
        if let issued = claims["iat"]?.numberValue, Date(timeIntervalSince1970: issued) > now.addingTimeInterval(300) {
            throw TokenError("the token was issued in the future")
        }
    }
}

extension TokenKind {
    /// A URL compared as an audience: `https://host/` and `https://host` are one address.
    private static func withoutTrailingSlash(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}

/// A token that was refused, and why.
public struct TokenError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Why, in words.
    public var reason: String

    /// Creates an error.
    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// Checks tokens the way the Firebase emulators do: the signature is not checked (the Auth
/// emulator's tokens are unsigned), but the token must be a well-formed JWT whose issuer,
/// audience, subject and expiry are right for the project.
public struct EmulatorTokenVerifier: TokenVerifier {
    /// The project tokens must be for.
    public let project: String
    /// The time source for expiry.
    public let clock: any BusClock

    /// Creates a verifier.
    public init(project: String, clock: any BusClock = SystemClock()) {
        self.project = project
        self.clock = clock
    }

    public func verify(_ token: String, as kind: TokenKind) async throws(TokenError) -> [String: JSONValue] {
        let jwt = try JSONWebToken(token)
        try kind.checkClaims(jwt.claims, project: project, now: clock.now)
        return jwt.claims
    }
}
