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

    @Test(
        "answers as two generations of sets do, whatever the hash",
        arguments: [
            ("the real hash", { @Sendable (key: CloudEvent.Key) in key.hashValue }),
            ("every key the same hash", { @Sendable (_: CloudEvent.Key) in 42 }),
            ("seven hashes, equal tags", { @Sendable (key: CloudEvent.Key) in abs(key.hashValue % 7) }),
            ("equal slots, different tags", { @Sendable (key: CloudEvent.Key) in (key.hashValue & ~0xFFFF_FFFF) | 5 }),
        ] as [(String, @Sendable (CloudEvent.Key) -> Int)]
    )
    func matchesModel(_ name: String, _ hash: @escaping @Sendable (CloudEvent.Key) -> Int) {
        for capacity in [1, 3, 50, 1000] {
            var table = RecentEventIDs(capacity: capacity, hash: hash)
            var model = Model(capacity: capacity)
            let seed = UInt64.random(in: 0...UInt64.max)
            var generator = SplitMixRandom(seed: seed)
            var answers = (table: [Bool](), model: [Bool]())
            for _ in 0..<6000 {
                // Ids from a range a little wider than two windows, so keys come back both
                // while remembered and after they are forgotten; two sources share ids.
                let id = Int.random(in: 0..<(capacity * 3 + 2), using: &generator)
                let key = CloudEvent.Key(source: Bool.random(using: &generator) ? "/a" : "/b", id: "e\(id)")
                answers.table.append(table.insert(key))
                answers.model.append(model.insert(key))
            }
            let firstDifference = answers.table.indices.first { answers.table[$0] != answers.model[$0] }
            #expect(
                firstDifference == nil,
                "capacity \(capacity), \(name), seed \(seed): the answers differ from insert \(firstDifference ?? 0) on"
            )
            #expect(answers.table.contains(false) && answers.table.contains(true))
        }
    }

    @Test(
        "keys given together answer as given one by one, duplicates within a batch included",
        arguments: [
            ("the real hash", { @Sendable (key: CloudEvent.Key) in key.hashValue }),
            ("every key the same hash", { @Sendable (_: CloudEvent.Key) in 42 }),
            ("seven hashes, equal tags", { @Sendable (key: CloudEvent.Key) in abs(key.hashValue % 7) }),
            ("equal slots, different tags", { @Sendable (key: CloudEvent.Key) in (key.hashValue & ~0xFFFF_FFFF) | 5 }),
        ] as [(String, @Sendable (CloudEvent.Key) -> Int)]
    )
    func batches(_ name: String, _ hash: @escaping @Sendable (CloudEvent.Key) -> Int) {
        for capacity in [1, 3, 50, 1000] {
            var table = RecentEventIDs(capacity: capacity, hash: hash)
            var model = Model(capacity: capacity)
            let seed = UInt64.random(in: 0...UInt64.max)
            var generator = SplitMixRandom(seed: seed)
            var inserted = 0
            while inserted < 6000 {
                // Batches of 1 to 600 keys (the warm-up goes 256 at a time), which cross
                // generations and repeat keys inside them; two sources share ids.
                let keys = (0..<Int.random(in: 1...600, using: &generator)).map { _ in
                    CloudEvent.Key(source: Bool.random(using: &generator) ? "/a" : "/b",
                        id: "e\(Int.random(in: 0..<(capacity * 3 + 2), using: &generator))")
                }
                let answers = table.insert(contentsOf: keys)
                let expected = keys.map { model.insert($0) }
                #expect(answers == expected, "capacity \(capacity), \(name), seed \(seed), after \(inserted) keys")
                guard answers == expected else { return }
                inserted += keys.count
            }
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

