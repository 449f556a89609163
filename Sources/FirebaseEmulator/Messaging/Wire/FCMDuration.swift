import Foundation
import CloudFunctions

/// A `google.protobuf.Duration` in its JSON form: `"3600s"`, `"1.5s"`, `"-2.000000001s"`.
package struct FCMDuration: Sendable, Hashable, Comparable {
    /// Whole seconds (negative for negative durations).
    public var seconds: Int64
    /// Nanoseconds, 0..<1_000_000_000, same sign as `seconds` when both are non-zero.
    public var nanos: Int32

    /// The largest magnitude protobuf allows: 10,000 years in seconds.
    public static let maxSeconds: Int64 = 315_576_000_000

    /// Creates a duration from its parts.
    public init(seconds: Int64, nanos: Int32 = 0) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// Parses the JSON form `-?\d+(\.\d{1,9})?s`; `nil` when the text does not match or is out
    /// of protobuf's range.
    public init?(_ text: String) {
        var scalars = Substring(text).unicodeScalars[...]
        guard scalars.last == "s" else { return nil }
        scalars = scalars.dropLast()
        let negative = scalars.first == "-"
        if negative { scalars = scalars.dropFirst() }
        let parts = scalars.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.count <= 12,
            whole.allSatisfy({ ("0"..."9").contains($0) }), let seconds = Int64(String(whole)),
            seconds <= FCMDuration.maxSeconds
        else { return nil }
        var nanos: Int32 = 0
        if parts.count == 2 {
            let fraction = parts[1]
            guard (1...9).contains(fraction.count), fraction.allSatisfy({ ("0"..."9").contains($0) }),
                let value = Int32(String(fraction) + String(repeating: "0", count: 9 - fraction.count))
            else { return nil }
            nanos = value
        }
        self.seconds = negative ? -seconds : seconds
        self.nanos = negative ? -nanos : nanos
    }

    /// Whether the duration is below zero.
    public var isNegative: Bool { seconds < 0 || nanos < 0 }

    /// The duration in seconds as a floating-point value.
    public var timeInterval: TimeInterval { Double(seconds) + Double(nanos) / 1_000_000_000 }

    /// The canonical JSON form, e.g. `3600s` or `1.500000000s`.
    public var jsonString: String {
        guard nanos != 0 else { return "\(seconds)s" }
        let sign = isNegative ? "-" : ""
        let digits = String(abs(nanos))
        return "\(sign)\(abs(seconds)).\(String(repeating: "0", count: 9 - digits.count))\(digits)s"
    }

    /// Orders durations by length.
    public static func < (lhs: FCMDuration, rhs: FCMDuration) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}
