import FirebaseEmulator
import Foundation
import CloudFunctions

/// A seeded SplitMix64 generator so salts and ids are the same on every run.
struct AuthTestGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64 = 42) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Shared fixtures of the Auth tests.
enum AuthFixtures {
    /// 2020-05-26T10:42:27.123Z.
    static let created = Date(timeIntervalSince1970: 1_590_489_747.123)
    /// 2020-10-24T11:00:00Z.
    static let lastLogin = Date(timeIntervalSince1970: 1_603_537_200)
    /// A fast hasher for tests.
    static let hasher = AuthPasswordHasher(cost: 4)

    /// Runs `body` and returns the `ServiceError` message it throws, or `nil`.
    static func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ServiceError {
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }
}
