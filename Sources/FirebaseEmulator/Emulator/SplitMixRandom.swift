/// A fast pseudo-random generator (SplitMix64) for ids, tokens and samples that need to be
/// unique and well spread, not secret: the system generator costs a system call per number,
/// which dominates when registering many devices. Seeded, it gives the same numbers on every
/// run, which is what tests and the Auth emulator's fixed seeds rely on.
package struct SplitMixRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Seeds from the system generator.
    package init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    /// Seeds with `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
