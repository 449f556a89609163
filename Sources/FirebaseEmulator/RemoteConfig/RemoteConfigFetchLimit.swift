import CloudFunctions
import Foundation

/// A per-app-instance fetch rate limit: at most ``count`` fetches in any ``window``.
///
/// Off by default: the real backend's limit is not published, and device SDKs throttle themselves
/// (`minimumFetchInterval`). Turn it on to exercise a client's `throttled` path; the historic limit
/// was about 5 fetches per 60 minutes.
public struct RemoteConfigFetchLimit: Sendable, Hashable {
    /// Fetches allowed per window.
    public var count: Int
    /// The sliding window.
    public var window: Duration

    /// Creates a limit of `count` fetches per `window`.
    public init(count: Int, window: Duration) {
        self.count = count
        self.window = window
    }

    /// The window in seconds.
    var windowSeconds: TimeInterval { window.seconds }

    /// Records a fetch at `now` in `history` (the instance's earlier fetch times, oldest first).
    ///
    /// - Returns: when the instance may fetch again, if this fetch is over the limit (then it is not
    ///   recorded); `nil` when it is allowed.
    func admit(at now: Date, history: inout [Date]) -> Date? {
        let windowStart = now.addingTimeInterval(-windowSeconds)
        history.removeAll { $0 <= windowStart }
        guard history.count >= max(count, 0) else {
            history.append(now)
            return nil
        }
        return (history.first ?? now).addingTimeInterval(windowSeconds)
    }
}
