import Foundation
import CloudFunctions
import Testing

@testable import FirebaseEmulator


/// A generator that always returns the same word (all random digits equal).
struct DatabaseConstantRandom: RandomNumberGenerator {
    var word: UInt64
    mutating func next() -> UInt64 { word }
}

@Suite("DatabasePushID")
struct DatabasePushIDTests {
    @Test("has 20 characters from the alphabet and encodes the timestamp")
    func shape() {
        var ids = DatabasePushID()
        var random = SplitMixRandom(seed: 1)
        let id = ids.next(milliseconds: 1_700_000_000_000, using: &random)
        #expect(id.count == 20)
        #expect(id.allSatisfy { DatabasePushID.alphabet.contains($0) })
        #expect(DatabasePushID.timestamp(of: id) == 1_700_000_000_000)
        #expect(id.hasPrefix("-N"))
        #expect(DatabaseKey.isValid(id))
    }

    @Test("encodes zero as eight dashes")
    func zeroTimestamp() {
        var ids = DatabasePushID()
        var random = DatabaseConstantRandom(word: 0)
        #expect(ids.next(milliseconds: 0, using: &random) == "--------------------")
        #expect(ids.next(milliseconds: 0, using: &random) == "-------------------0")
    }

    @Test("takes the time from a Date")
    func fromDate() {
        var ids = DatabasePushID()
        var random = SplitMixRandom(seed: 7)
        let id = ids.next(now: Date(timeIntervalSince1970: 1_234.5678), using: &random)
        #expect(DatabasePushID.timestamp(of: id) == 1_234_567)
    }

    @Test("is strictly increasing within one millisecond")
    func sameMillisecond() {
        var ids = DatabasePushID()
        var random = SplitMixRandom(seed: 42)
        var previous = ""
        for _ in 0..<10_000 {
            let id = ids.next(milliseconds: 1_700_000_000_000, using: &random)
            #expect(id > previous)
            previous = id
        }
        #expect(DatabasePushID.timestamp(of: previous) == 1_700_000_000_000)
    }

    @Test("is strictly increasing across milliseconds, even when the clock goes back")
    func acrossMilliseconds() {
        var ids = DatabasePushID()
        var random = SplitMixRandom(seed: 3)
        var previous = ""
        let times: [Int64] = [5, 5, 6, 6, 6, 100, 99, 50, 101, 1 << 40, 1 << 40]
        for time in times {
            for _ in 0..<50 {
                let id = ids.next(milliseconds: time, using: &random)
                #expect(id > previous)
                previous = id
            }
        }
    }

    @Test("carries into the timestamp when the random part overflows")
    func overflow() {
        var ids = DatabasePushID()
        var random = DatabaseConstantRandom(word: .max)
        let first = ids.next(milliseconds: 10, using: &random)
        #expect(first.hasSuffix("zzzzzzzzzzzz"))
        let second = ids.next(milliseconds: 10, using: &random)
        #expect(second > first)
        #expect(DatabasePushID.timestamp(of: second) == 11)
    }

    @Test("rejects ids that are not push ids", arguments: ["short", "--------------------x", "-------------------."])
    func badTimestamp(id: String) {
        #expect(DatabasePushID.timestamp(of: id) == nil)
    }
}
