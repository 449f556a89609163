import CloudFunctions
import CloudEvents

/// The most recent event keys (source and id), to drop duplicates of an event already accepted.
///
/// Keys live in two generations: new keys go into the current one, and when it holds
/// `capacity` keys it becomes the previous one and the old previous one is dropped whole. So
/// at least the latest `capacity` keys (and at most twice that) are remembered, and no key is
/// ever removed one by one.
struct RecentEventIDs: Sendable {
    private var current: Set<CloudEvent.Key> = []
    private var previous: Set<CloudEvent.Key> = []
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds a key; `false` when it was already there.
    mutating func insert(_ key: CloudEvent.Key) -> Bool {
        guard !previous.contains(key), current.insert(key).inserted else { return false }
        if current.count >= capacity {
            previous = current
            current = Set(minimumCapacity: capacity)
        }
        return true
    }
}
