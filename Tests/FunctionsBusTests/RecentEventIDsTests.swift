import CloudEvents
import CloudFunctions
import Testing

@testable import FunctionsBus

@Suite("Recent event ids: the bus's duplicate check")
struct RecentEventIDsTests {
    /// What the table must answer: two generations of `Set`s, the rule the bus documents.
    struct Model {
        var current: Set<CloudEvent.Key> = []
        var previous: Set<CloudEvent.Key> = []
        let capacity: Int

        mutating func insert(_ key: CloudEvent.Key) -> Bool {
            guard !previous.contains(key), current.insert(key).inserted else { return false }
            if current.count >= capacity {
                previous = current
                current = []
            }
            return true
        }
    }

    /// Hashes the table must answer rightly with: the real one, and ones that make keys collide.
    static let hashes: [(String, @Sendable (CloudEvent.Key) -> Int)] = [
        ("the real hash", { key in key.hashValue }),
        ("every key the same hash", { _ in 42 }),
        ("seven hashes, equal tags", { key in abs(key.hashValue % 7) }),
        ("equal slots, different tags", { key in (key.hashValue & ~0xFFFF_FFFF) | 5 }),
    ]

    @Test(
        "answers as two generations of sets do, key by key or in batches, whatever the hash",
        arguments: RecentEventIDsTests.hashes, [false, true]
    )
    func matchesModel(_ hash: (name: String, function: @Sendable (CloudEvent.Key) -> Int), batched: Bool) {
        for capacity in [1, 3, 50, 1000] {
            var table = RecentEventIDs(capacity: capacity, hash: hash.function)
            var model = Model(capacity: capacity)
            let seed = UInt64.random(in: 0...UInt64.max)
            var generator = Xorshift(state: seed | 1)
            var answers = (table: [Bool](), model: [Bool]())
            while answers.model.count < 6000 {
                // Ids from a range a little wider than two windows, so keys come back both
                // while remembered and after they are forgotten; two sources share ids. Batches
                // of 1 to 600 keys (the warm-up goes 256 at a time) repeat keys inside them too.
                let keys = (0..<(batched ? Int.random(in: 1...600, using: &generator) : 1)).map { _ in
                    CloudEvent.Key(source: Bool.random(using: &generator) ? "/a" : "/b",
                        id: "e\(Int.random(in: 0..<(capacity * 3 + 2), using: &generator))")
                }
                answers.table += batched ? table.insert(contentsOf: keys) : keys.map { table.insert($0) }
                answers.model += keys.map { model.insert($0) }
            }
            let firstDifference = answers.table.indices.first { answers.table[$0] != answers.model[$0] }
            #expect(
                firstDifference == nil,
                "capacity \(capacity), \(hash.name), batched \(batched), seed \(seed): the answers differ from insert \(firstDifference ?? 0) on"
            )
            #expect(answers.table.contains(false) && answers.table.contains(true))
        }
    }

    @Test("a key is a duplicate until two windows of other keys have passed")
    func window() {
        var table = RecentEventIDs(capacity: 100)
        func accepts(_ id: String) -> Bool { table.insert(CloudEvent.Key(source: "/s", id: id)) }
        #expect(accepts("first"))
        #expect((0..<99).allSatisfy { accepts("\($0)") })
        #expect(!accepts("first"))  // in the previous generation now
        #expect((100..<199).allSatisfy { accepts("\($0)") })
        #expect(!accepts("first"))
        #expect(accepts("199"))  // the generation holding "first" is dropped
        #expect(accepts("first"))
    }
}

/// A seeded generator (xorshift64), so that a failing run can be repeated from its seed.
struct Xorshift: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
