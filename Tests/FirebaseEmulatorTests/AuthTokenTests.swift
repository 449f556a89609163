import FirebaseEmulator
import Foundation
import CloudFunctions
import Testing

@Suite("Auth emulator tokens")
struct AuthTokenTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000.9)
    let user = AuthUser(
        localId: "uid-1", email: "a@b.com", emailVerified: true, displayName: "A", photoURL: "https://x.y/p.png",
        phoneNumber: "+15555550100", createdAt: Date(timeIntervalSince1970: 1_600_000_000),
        customClaims: ["admin": true, "email": "spoof@evil.com"],
        providerData: [AuthProviderInfo(providerId: "google.com", rawId: "g-1")],
        passwordHash: "$2b$04$abcdefghijklmnopqrstuuJ2nb0CSvGMfRkPv0u1XwExbqqfJIH9e"
    )

    @Test("issues an unsigned JWT with the emulator's claims")
    func issue() throws {
        let token = AuthIDToken.encode(claims: AuthIDToken.claims(for: user, projectId: "demo-p", signInProvider: "password", now: now))
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(parts[0] == "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0")
        #expect(parts[2] == "")
        let payload = try JSONValue(parsing: try #require(AuthBase64.decode(String(parts[1]))))
        #expect(payload == [
            "iss": "https://securetoken.google.com/demo-p", "aud": "demo-p", "auth_time": 1_700_000_000,
            "user_id": "uid-1", "sub": "uid-1", "iat": 1_700_000_000, "exp": 1_700_003_600,
            "email": "a@b.com", "email_verified": true, "phone_number": "+15555550100", "name": "A",
            "picture": "https://x.y/p.png", "admin": true,
            "firebase": [
                "identities": ["email": ["a@b.com"], "phone": ["+15555550100"], "google.com": ["g-1"]],
                "sign_in_provider": "password",
            ],
        ])
    }

    @Test("marks anonymous tokens and carries the tenant")
    func anonymous() {
        let anonymous = AuthUser(localId: "anon", createdAt: now)
        let claims = AuthIDToken.claims(for: anonymous, projectId: "p", signInProvider: "anonymous", now: now,
                                        authTime: Date(timeIntervalSince1970: 5), tenantId: "t1")
        #expect(claims["provider_id"] == "anonymous")
        #expect(claims["email"] == nil)
        #expect(claims["auth_time"] == 5)
        #expect(claims["firebase"] == ["identities": [:], "sign_in_provider": "anonymous", "tenant": "t1"])
    }

    @Test("parses its own tokens back")
    func roundTrip() throws {
        let token = AuthIDToken.encode(claims: AuthIDToken.claims(for: user, projectId: "demo-p", signInProvider: "google.com", now: now))
        let parsed = try AuthIDToken(parsing: token, projectId: "demo-p", now: now.addingTimeInterval(3598))
        #expect(parsed.uid == "uid-1")
        #expect(parsed.audience == "demo-p")
        #expect(parsed.issuedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(parsed.expiresAt == Date(timeIntervalSince1970: 1_700_003_600))
        #expect(parsed.signInProvider == "google.com")
        #expect(parsed.email == "a@b.com")
        #expect(parsed.customClaims == ["admin": true])
        #expect(!parsed.isSigned)
        try parsed.validate(for: user)
    }

    @Test("rejects expired tokens unless told not to check")
    func expiry() throws {
        let token = AuthIDToken.encode(claims: AuthIDToken.claims(for: user, projectId: "p", signInProvider: "password", now: now))
        let later = now.addingTimeInterval(3600)
        #expect(
            AuthFixtures.message { _ = try AuthIDToken(parsing: token, projectId: "p", now: later) } == "TOKEN_EXPIRED"
        )
        #expect(try AuthIDToken(parsing: token, projectId: "p", now: later, checksExpiry: false).uid == "uid-1")
    }

    @Test("rejects malformed or foreign tokens with INVALID_ID_TOKEN", arguments: [
        "", "abc", "a.b", "a.b.c.d", "!!!.###.", "eyJhbGciOiJub25lIn0.bm90IGpzb24.",
    ])
    func malformed(token: String) {
        let message = AuthFixtures.message { _ = try AuthIDToken(parsing: token, projectId: nil, now: now) }
        #expect(message == "INVALID_ID_TOKEN")
    }

    @Test("checks audience, issuer, subject and times")
    func claimChecks() throws {
        let good = AuthIDToken.claims(for: user, projectId: "p", signInProvider: "password", now: now)
        var cases: [[String: JSONValue]] = []
        for (key, value) in [("aud", JSONValue.string("other")), ("iss", "https://securetoken.google.com/other"),
                             ("sub", ""), ("sub", .string(String(repeating: "s", count: 129))), ("iat", "soon"),
                             ("exp", .number(.infinity)), ("sub", 5)] {
            var claims = good
            claims[key] = value
            cases.append(claims)
        }
        var missing = good
        missing["exp"] = nil
        cases.append(missing)
        for claims in cases {
            #expect(AuthFixtures.message {
                _ = try AuthIDToken(parsing: AuthIDToken.encode(claims: claims), projectId: "p", now: now)
            } == "INVALID_ID_TOKEN")
        }
        #expect(try AuthIDToken(parsing: AuthIDToken.encode(claims: good), projectId: nil, now: now).audience == "p")
    }

    @Test("accepts signed tokens but says so")
    func signed() throws {
        let unsigned = AuthIDToken.encode(claims: AuthIDToken.claims(for: user, projectId: "p", signInProvider: "password", now: now))
        let payload = unsigned.split(separator: ".")[1]
        let header = AuthBase64.urlEncoded(Data(#"{"alg":"RS256","kid":"k"}"#.utf8))
        let parsed = try AuthIDToken(parsing: "\(header).\(payload).c2ln", projectId: "p", now: now)
        #expect(parsed.isSigned)
    }

    @Test("checks the stored user in the emulator's order")
    func userChecks() throws {
        let token = try AuthIDToken(
            parsing: AuthIDToken.encode(claims: AuthIDToken.claims(for: user, projectId: "p", signInProvider: "password", now: now)),
            projectId: "p", now: now)
        #expect(AuthFixtures.message { try token.validate(for: nil) } == "USER_NOT_FOUND")
        var revoked = user
        revoked.validSince = now.addingTimeInterval(1)
        revoked.disabled = true
        #expect(AuthFixtures.message { try token.validate(for: revoked) } == "TOKEN_EXPIRED")
        var disabled = user
        disabled.disabled = true
        #expect(AuthFixtures.message { try token.validate(for: disabled) } == "USER_DISABLED")
        var sameSecond = user
        sameSecond.validSince = Date(timeIntervalSince1970: 1_700_000_000)
        try token.validate(for: sameSecond)
    }

    @Test("makes distinct opaque refresh tokens that read back")
    func refreshTokens() throws {
        var generator = SplitMixRandom(seed: 42)
        let first = AuthRefreshToken(localId: "uid-1", projectId: "p", signInProvider: "password", issuedAt: now,
                                     using: &generator)
        let second = AuthRefreshToken(localId: "uid-1", projectId: "p", signInProvider: "password", issuedAt: now,
                                      using: &generator)
        #expect(first.encoded != second.encoded)
        #expect(!first.encoded.contains("."))
        let parsed = try AuthRefreshToken(parsing: first.encoded)
        #expect(parsed == first)
        #expect(parsed.issuedAt == Date(timeIntervalSince1970: 1_700_000_000))
        try parsed.validate(projectId: "p", user: user)
        let foreign = AuthFixtures.message { try parsed.validate(projectId: "q", user: self.user) }
        #expect(foreign == "INVALID_REFRESH_TOKEN")
        #expect(AuthFixtures.message { try parsed.validate(projectId: "p", user: nil) } == "USER_NOT_FOUND")
        var revoked = user
        revoked.validSince = now.addingTimeInterval(5)
        #expect(AuthFixtures.message { try parsed.validate(projectId: "p", user: revoked) } == "TOKEN_EXPIRED")
        var disabled = user
        disabled.disabled = true
        #expect(AuthFixtures.message { try parsed.validate(projectId: "p", user: disabled) } == "USER_DISABLED")
    }

    @Test("rejects refresh tokens it did not make", arguments: [
        "", "garbage!", AuthBase64.urlEncoded(Data("{}".utf8)), AuthBase64.urlEncoded(Data("[1]".utf8)),
        AuthBase64.urlEncoded(Data(#"{"_AuthEmulatorRefreshToken":"x","localId":"u","projectId":"p"}"#.utf8)),
    ])
    func badRefreshTokens(text: String) {
        #expect(AuthFixtures.message { _ = try AuthRefreshToken(parsing: text) } == "INVALID_REFRESH_TOKEN")
    }
}
