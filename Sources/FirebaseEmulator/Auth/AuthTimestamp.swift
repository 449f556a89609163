import Foundation
import CloudFunctions

/// Conversions between `Date` and the epoch forms of the Auth wire formats (milliseconds or
/// seconds since 1970, as numbers or strings); its RFC 3339 times are `RFC3339Timestamp`'s.
package enum AuthTimestamp {
    /// The largest magnitude of a JavaScript `Date`, in milliseconds (±100,000,000 days).
    public static let maximumMilliseconds: Int64 = 8_640_000_000_000_000

    /// Whole milliseconds since the Unix epoch (to the nearest, so dates made from milliseconds read back
    /// exactly; clamped to the JavaScript date range).
    public static func milliseconds(_ date: Date) -> Int64 {
        clamp((date.timeIntervalSince1970 * 1000).rounded(), limit: maximumMilliseconds)
    }

    /// Whole seconds since the Unix epoch: ``milliseconds(_:)`` rounded down to the second.
    public static func seconds(_ date: Date) -> Int64 {
        let total = milliseconds(date)
        return total / 1000 - (total % 1000 < 0 ? 1 : 0)
    }

    /// The date `milliseconds` after the Unix epoch.
    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The date `seconds` after the Unix epoch.
    public static func date(seconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(seconds))
    }

    /// Reads an epoch-milliseconds value given as an integer string or a JSON number.
    ///
    /// - Returns: the milliseconds, or `nil` when the value is neither or lies outside the JavaScript date range.
    public static func milliseconds(from value: JSONValue) -> Int64? {
        switch value {
        case .string(let text):
            guard let parsed = Int64(text.trimmingCharacters(in: .whitespaces)) else { return nil }
            return parsed.magnitude <= maximumMilliseconds.magnitude ? parsed : nil
        case .number(let number):
            guard number.isFinite, abs(number) <= Double(maximumMilliseconds) else { return nil }
            return Int64(number.rounded(.down))
        default:
            return nil
        }
    }

    private static func clamp(_ value: Double, limit: Int64) -> Int64 {
        guard value.isFinite else { return 0 }
        return Int64(min(max(value, -Double(limit)), Double(limit)))
    }
}
