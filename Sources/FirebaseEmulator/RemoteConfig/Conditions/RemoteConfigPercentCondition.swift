import Crypto
import Foundation
import CloudFunctions

/// A percentile test, shared by the expression form and server templates' structured form.
package struct RemoteConfigPercentCondition: Sendable, Hashable {
    /// The seed (0–32 characters of `[-_.0-9a-zA-Z]`); empty means unseeded.
    public var seed: String
    /// The operator and its micro-percent bounds.
    public var range: Range

    /// Creates a percent condition.
    public init(seed: String = "", range: Range) {
        self.seed = seed
        self.range = range
    }

    /// The micro-percent range (100,000,000 micro-percent = 100%).
    public enum Range: Sendable, Hashable {
        /// `LESS_OR_EQUAL`: `x <= microPercent`.
        case lessOrEqual(Int)
        /// `GREATER_THAN`: `x > microPercent`.
        case greaterThan(Int)
        /// `BETWEEN`: `lower < x <= upper`.
        case between(lower: Int, upper: Int)

        /// Whether a micro-percentile falls in the range.
        public func contains(_ microPercentile: Int) -> Bool {
            switch self {
            case .lessOrEqual(let bound): microPercentile <= bound
            case .greaterThan(let bound): microPercentile > bound
            case .between(let lower, let upper): lower < microPercentile && microPercentile <= upper
            }
        }
    }

    /// Micro-percent in one percent.
    public static let microPercentPerPercent = 1_000_000

    /// Micro-percent in the whole range (100%).
    public static let microPercentTotal = 100_000_000

    /// The instance's micro-percentile for a seed: SHA-256 of `seed.` + id (no `seed.` prefix when
    /// the seed is empty), read as a 256-bit big-endian integer, modulo 100,000,000.
    public static func microPercentile(seed: String, randomizationID: String) -> Int {
        let input = (seed.isEmpty ? "" : seed + ".") + randomizationID
        let digest = SHA256.hash(data: Data(input.utf8))
        let modulus = UInt64(microPercentTotal)
        var remainder: UInt64 = 0
        for byte in digest {
            remainder = (remainder << 8 | UInt64(byte)) % modulus
        }
        return Int(remainder)
    }

    /// Whether the instance with `randomizationID` falls in the range; `nil` or empty ids never do.
    public func evaluate(randomizationID: String?) -> Bool {
        guard let randomizationID, !randomizationID.isEmpty else { return false }
        return range.contains(Self.microPercentile(seed: seed, randomizationID: randomizationID))
    }

    /// Whether a seed has the allowed form: 0–32 characters of `[-_.0-9a-zA-Z]`.
    public static func isValidSeed(_ seed: String) -> Bool {
        seed.unicodeScalars.count <= 32
            && seed.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
            }
    }
}
