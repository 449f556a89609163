import CloudFunctions
import CloudEvents

/// The most recent event keys (source and id), to drop duplicates of an event already accepted.
///
/// Keys live in two generations: new keys go into the current one, and when it holds
/// `capacity` keys it becomes the previous one and the old previous one is dropped whole. So
/// at least the latest `capacity` keys (and at most twice that) are remembered, and no key is
/// ever removed one by one.
///
/// Every published event is looked up in both generations, so the lookup's memory traffic is
/// what the bus pays: each generation is an open-addressing table of 8-byte slots (a tag from
/// the key's hash, and where the key is in the generation's list), at most half full, and keys
/// are compared only when their tags are equal. With a window of 100,000 keys the two tables
/// take 4 MB (the key lists, written in order, are read only where tags are equal), where two
/// `Set`s of keys took 16 MB and missed the cache on nearly every lookup.
struct RecentEventIDs: Sendable {
    /// One generation: its keys in the order they came, and the table that finds them.
    private struct Generation: Sendable {
        var keys: [CloudEvent.Key] = []
        /// 0 for an empty slot, else the hash's upper 32 bits above the key's position + 1.
        /// Its size is a power of two, doubled whenever the keys would fill more than half.
        var slots = [UInt64](repeating: 0, count: 16)

        /// The upper half of a slot's entry: the hash's upper 32 bits.
        static func tag(_ hash: Int) -> UInt64 { UInt64(truncatingIfNeeded: hash) & ~0xFFFF_FFFF }

        /// A slot's entry: the hash's tag above the key's position + 1.
        static func entry(hash: Int, position: Int) -> UInt64 { tag(hash) | UInt64(position + 1) }

        /// Where `key` is in the table, or the empty slot where it would go.
        func find(_ key: CloudEvent.Key, hash: Int) -> (slot: Int, found: Bool) {
            let mask = slots.count - 1
            let tag = Generation.tag(hash)
            var slot = hash & mask
            while true {
                let entry = slots[slot]
                if entry == 0 { return (slot, false) }
                if entry & ~0xFFFF_FFFF == tag, keys[Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1] == key { return (slot, true) }
                slot = (slot + 1) & mask
            }
        }

        /// The entry in the slot where a lookup of `hash` starts.
        func firstSlot(hash: Int) -> UInt64 { slots[hash & (slots.count - 1)] }

        /// Adds `key` at the empty `slot` ``find(_:hash:)`` gave.
        mutating func insert(_ key: CloudEvent.Key, hash: Int, at slot: Int, rehash: (CloudEvent.Key) -> Int) {
            slots[slot] = Generation.entry(hash: hash, position: keys.count)
            keys.append(key)
            guard keys.count * 2 > slots.count else { return }
            slots = [UInt64](repeating: 0, count: slots.count * 2)
            for (position, key) in keys.enumerated() {
                let hash = rehash(key)
                slots[find(key, hash: hash).slot] = Generation.entry(hash: hash, position: position)
            }
        }

        /// Forgets every key, keeping the storage.
        mutating func removeAll() {
            keys.removeAll(keepingCapacity: true)
            for index in slots.indices { slots[index] = 0 }
        }
    }

    private var current: Generation
    private var previous: Generation
    private let capacity: Int
    private let hash: @Sendable (CloudEvent.Key) -> Int

    /// - Parameters:
    ///   - capacity: how many keys each generation holds (at most 2³¹, as a slot keeps a key's
    ///     position in 32 bits).
    ///   - hash: the keys' hash; tests give a poor one to make keys collide.
    init(capacity: Int, hash: @escaping @Sendable (CloudEvent.Key) -> Int = { $0.hashValue }) {
        self.capacity = min(max(1, capacity), 1 << 31)
        self.hash = hash
        current = Generation()
        previous = Generation()
    }

    /// What the warm-up loads of ``insert(contentsOf:)`` add up to: kept, so that they are made.
    private var warmUp: UInt64 = 0

    /// Adds a key; `false` when it was already there.
    mutating func insert(_ key: CloudEvent.Key) -> Bool {
        insert(key, hash: hash(key))
    }

    /// Adds keys in order, answering what ``insert(_:)`` one after another would.
    ///
    /// Keys go 256 at a time: the first slot of each of them in both generations is read
    /// before any of them is looked up. Those reads do not depend on one another, so the
    /// processor overlaps their cache misses, and the lookups that follow find the slots in
    /// cache (one miss after another was most of the bus's duplicate check).
    mutating func insert(contentsOf keys: [CloudEvent.Key]) -> [Bool] {
        let hashes = keys.map(hash)
        var answers: [Bool] = []
        answers.reserveCapacity(keys.count)
        for start in stride(from: 0, to: keys.count, by: 256) {
            let chunk = start..<min(keys.count, start + 256)
            var sum = warmUp
            for position in chunk {
                sum &+= previous.firstSlot(hash: hashes[position]) &+ current.firstSlot(hash: hashes[position])
            }
            warmUp = sum
            for position in chunk { answers.append(insert(keys[position], hash: hashes[position])) }
        }
        return answers
    }

    private mutating func insert(_ key: CloudEvent.Key, hash: Int) -> Bool {
        guard !previous.find(key, hash: hash).found else { return false }
        let (slot, found) = current.find(key, hash: hash)
        guard !found else { return false }
        current.insert(key, hash: hash, at: slot, rehash: self.hash)
        if current.keys.count >= capacity {
            swap(&previous, &current)
            current.removeAll()
        }
        return true
    }
}
