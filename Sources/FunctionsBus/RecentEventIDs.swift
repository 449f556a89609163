import CloudFunctions
import CloudEvents

/// The most recent event keys (source and id), to drop duplicates of an event already accepted.
struct RecentEventIDs: Sendable {
    private var keys: [CloudEvent.Key?]
    private var members: Set<CloudEvent.Key> = []
    private var next = 0

    init(capacity: Int) {
        keys = Array(repeating: nil, count: max(1, capacity))
    }

    /// Adds a key; `false` when it was already there.
    mutating func insert(_ key: CloudEvent.Key) -> Bool {
        guard members.insert(key).inserted else { return false }
        if let evicted = keys[next] { members.remove(evicted) }
        keys[next] = key
        next = (next + 1) % keys.count
        return true
    }
}
