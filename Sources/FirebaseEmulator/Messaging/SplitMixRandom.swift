/// A fast pseudo-random generator (SplitMix64) for ids and tokens that need to be unique and
/// well spread, not secret: the system generator costs a system call per number, which
/// dominates when registering many devices.
struct SplitMixRandom: RandomNumberGenerator {
    private var state: UInt64

    /// Seeds from the system generator.
    init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
