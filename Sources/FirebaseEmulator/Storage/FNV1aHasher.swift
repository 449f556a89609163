/// FNV-1a, 64-bit: database ETags, and ids derived from a text (an event's trace).
package struct FNV1aHasher {
    /// The hash of what was combined so far.
    package private(set) var state: UInt64

    /// A hasher from FNV's offset basis, or from `state` to go on from an earlier hash.
    package init(state: UInt64 = 0xcbf2_9ce4_8422_2325) {
        self.state = state
    }

    package mutating func combine(byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    /// The integer's eight bytes, least significant first.
    package mutating func combine(_ integer: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { combine(byte: UInt8(truncatingIfNeeded: integer >> shift)) }
    }

    /// The string's UTF-8 length, then its bytes.
    package mutating func combine(_ string: String) {
        combine(UInt64(string.utf8.count))
        for byte in string.utf8 { combine(byte: byte) }
    }
}
