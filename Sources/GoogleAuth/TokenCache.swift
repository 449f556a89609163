import CloudFunctions
import FirebaseHTTP
import Foundation
import Synchronization

/// Keeps one access token for the process and renews it before it expires: a token within
/// ``margin`` of its expiry is renewed at its next use (so one that lives shorter than the margin
/// is renewed at every use), and however many callers need a renewal at once, one is on its way.
/// A renewal that fails while the token at hand has not expired yet leaves that token in use.
package final class TokenCache: Sendable {
    /// How long before its expiry a token is renewed: google-auth's 3 min 45 s.
    package static let defaultMargin: Duration = .seconds(225)
    /// The least time between two renewals forced by a refusal: a service that refuses every
    /// token (a missing role, for one that answers 401 then) does not get a renewal per call.
    package static let refusalInterval: TimeInterval = 30

    /// How long before its expiry a token is renewed.
    package let margin: Duration
    private let clock: any BusClock
    private let token: ResolvedOnce<AccessToken>
    /// When a refusal last forced a renewal.
    private let lastForcedRenewal = Mutex<Date?>(nil)

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
        let now = clock.now
        let renewBy = now.addingTimeInterval(margin.seconds)
        do {
            return try await token.value(while: { $0.expiresAt > renewBy })
        } catch let error where !(error is CancellationError) {
            if let kept = token.current, kept.expiresAt > clock.now { return kept }
            throw error
        }
    }

    /// A service refused `refused`: if it is still the token at hand, the next use renews it,
    /// unless a refusal forced a renewal less than ``refusalInterval`` ago.
    package func refused(_ refused: AccessToken) {
        let now = clock.now
        let forces = lastForcedRenewal.withLock { last in
            if let last, now.timeIntervalSince(last) < Self.refusalInterval { return false }
            guard token.current == refused else { return false }
            last = now
            return true
        }
        if forces { token.forget(where: { $0 == refused }) }
    }
}
