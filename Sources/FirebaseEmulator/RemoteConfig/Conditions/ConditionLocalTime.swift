import Foundation

/// The zone-less local times of condition literals (`dateTime('2025-06-01T09:00:00', 'Europe/Paris')`).
enum ConditionLocalTime {
    /// Parses a zone-less local time `yyyy-MM-ddTHH:mm[:ss[.fff]]` in `zone` (condition literals).
    ///
    /// - Returns: the date, or `nil` when the text is malformed or names an impossible time.
    static func parse(_ text: String, in zone: TimeZone) -> Date? {
        let scalars = Array(text.utf8)
        guard let local = parseLocal(scalars, requireSeconds: false), local.end == scalars.count else { return nil }
        return makeDate(local.components, in: zone)?.addingTimeInterval(local.fraction)
    }

    private struct LocalTime {
        var components: DateComponents
        var fraction: TimeInterval
        var end: Int
    }

    private static func parseLocal(_ s: [UInt8], requireSeconds: Bool) -> LocalTime? {
        guard s.count >= 16, let year = digits(s, 0, 4), s[4] == UInt8(ascii: "-"), let month = digits(s, 5, 2),
            s[7] == UInt8(ascii: "-"), let day = digits(s, 8, 2),
            s[10] == UInt8(ascii: "T") || s[10] == UInt8(ascii: "t") || s[10] == UInt8(ascii: " "),
            let hour = digits(s, 11, 2), s[13] == UInt8(ascii: ":"), let minute = digits(s, 14, 2)
        else { return nil }
        var index = 16
        var second = 0
        var fraction: TimeInterval = 0
        if index < s.count, s[index] == UInt8(ascii: ":") {
            guard let value = digits(s, index + 1, 2) else { return nil }
            second = value
            index += 3
            if index < s.count, s[index] == UInt8(ascii: ".") {
                index += 1
                let start = index
                var scale = 0.1
                while index < s.count, let digit = digit(s[index]) {
                    fraction += Double(digit) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start, index - start <= 9 else { return nil }
            }
        } else if requireSeconds {
            return nil
        }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else {
            return nil
        }
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return LocalTime(components: components, fraction: fraction, end: index)
    }

    private static func makeDate(_ components: DateComponents, in zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        guard let date = calendar.date(from: components) else { return nil }
        // Reject impossible days such as February 30 that Calendar would roll over.
        let check = calendar.dateComponents([.year, .month, .day], from: date)
        guard check.year == components.year, check.month == components.month, check.day == components.day else {
            return nil
        }
        return date
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func digits(_ s: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start >= 0, start + count <= s.count else { return nil }
        var value = 0
        for index in start..<(start + count) {
            guard let digit = digit(s[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}
