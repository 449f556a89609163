import CloudFunctions
import FirebaseHTTP
import Foundation

/// Keeps one access token for the process and renews it before it expires: a token within
/// ``margin`` of its expiry is renewed at its next use (so one that lives shorter than the margin
/// is renewed at every use), and however many callers need a renewal at once, one is on its way.
package struct TokenCache: Sendable {
    /// How long before its expiry a token is renewed: google-auth's 3 min 45 s.
    package static let defaultMargin: Duration = .seconds(225)

    /// How long before its expiry a token is renewed.
    package let margin: Duration
    private let clock: any BusClock
    private let token: ResolvedOnce<AccessToken>

    /// Creates a cache that gets tokens with `fetch`.
    package init(
        margin: Duration = TokenCache.defaultMargin,
        clock: any BusClock = SystemClock(),
        fetch: @escaping @Sendable () async throws -> AccessToken
    ) {
        self.margin = margin
        self.clock = clock
        token = ResolvedOnce(fetch)
    }

    /// The token at hand while it is good for longer than the margin; else a renewed one.
    package func token() async throws -> AccessToken {
        let renewBy = clock.now.addingTimeInterval(margin.seconds)
        return try await token.value(while: { $0.expiresAt > renewBy })
    }

    /// Forgets `refused` if it is still the token at hand (a service refused it): the next use renews.
    package func refused(_ refused: AccessToken) {
        token.forget(where: { $0 == refused })
    }
}
