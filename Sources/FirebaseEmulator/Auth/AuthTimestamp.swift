import Foundation
import CloudFunctions

/// Conversions between `Date` and the timestamp forms of the Auth wire formats.
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
            return abs(parsed) <= maximumMilliseconds ? parsed : nil
        case .number(let number):
            guard number.isFinite, abs(number) <= Double(maximumMilliseconds) else { return nil }
            return Int64(number.rounded(.down))
        default:
            return nil
        }
    }

    /// The RFC 3339 form with milliseconds in UTC, as JavaScript's `toISOString` writes it
    /// (`2020-05-26T10:42:27.000Z`).
    public static func rfc3339(_ date: Date) -> String {
        let total = milliseconds(date)
        var seconds = total / 1000
        var fraction = total % 1000
        if fraction < 0 {
            seconds -= 1
            fraction += 1000
        }
        let whole = Date.ISO8601FormatStyle().format(AuthTimestamp.date(seconds: seconds))
        let digits = String(fraction)
        return whole.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Parses an ISO 8601 / RFC 3339 timestamp, with or without fractional seconds.
    public static func parseISO8601(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    private static func clamp(_ value: Double, limit: Int64) -> Int64 {
        guard value.isFinite else { return 0 }
        return Int64(min(max(value, -Double(limit)), Double(limit)))
    }
}
