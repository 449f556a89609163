import Foundation

/// Reads and writes RFC 3339 timestamps such as `2025-01-02T03:04:05.678Z`.
///
/// Reading accepts any number of fraction digits, `Z`/`z` or a numeric offset, and `T`/`t`
/// or a space between date and time. Writing always uses UTC and `Z`, with milliseconds, or
/// microseconds when the instant is not a whole millisecond: at most six digits, which is
/// what the Firebase SDKs parse.
public enum RFC3339Timestamp {
    /// Parses a timestamp; `nil` when the text is not RFC 3339.
    public static func date(from text: some StringProtocol) -> Date? {
        let bytes = Array(text.utf8)
        var reader = DigitReader(bytes: bytes)
        guard let year = reader.number(digits: 4), reader.skip("-"),
            let month = reader.number(digits: 2), reader.skip("-"),
            let day = reader.number(digits: 2),
            reader.skip("T") || reader.skip("t") || reader.skip(" "),
            let hour = reader.number(digits: 2), reader.skip(":"),
            let minute = reader.number(digits: 2), reader.skip(":"),
            let second = reader.number(digits: 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if reader.skip(".") {
            var scale = 0.1
            var digits = 0
            while let digit = reader.digit() {
                fraction += Double(digit) * scale
                scale /= 10
                digits += 1
            }
            guard digits > 0 else { return nil }
        }
        var offsetSeconds = 0
        if reader.skip("Z") || reader.skip("z") {
            offsetSeconds = 0
        } else if let sign = reader.sign(), let offsetHour = reader.number(digits: 2), reader.skip(":"),
            let offsetMinute = reader.number(digits: 2), offsetHour < 24, offsetMinute < 60
        {
            offsetSeconds = sign * (offsetHour * 3600 + offsetMinute * 60)
        } else {
            return nil
        }
        guard reader.atEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Formats an instant in UTC with milliseconds, or microseconds when needed. Dates outside
    /// the years 0000 to 9999, or not finite, have no RFC 3339 form: they are written as the epoch.
    public static func string(from date: Date) -> String {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, interval >= -62_167_219_200, interval < 253_402_300_800 else {
            return "1970-01-01T00:00:00.000Z"
        }
        let totalMicros = (interval * 1_000_000).rounded()
        var seconds = Int((totalMicros / 1_000_000).rounded(.down))
        let micros = Int(totalMicros - Double(seconds) * 1_000_000)
        var days = seconds / 86_400
        seconds -= days * 86_400
        if seconds < 0 {
            seconds += 86_400
            days -= 1
        }
        let (year, month, day) = civilFromDays(days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(seconds / 3600, 2) + ":" + pad(seconds / 60 % 60, 2) + ":" + pad(seconds % 60, 2)
        text += micros % 1000 == 0 ? "." + pad(micros / 1000, 3) : "." + pad(micros, 6)
        return text + "Z"
    }

    /// Formats an instant in UTC with exactly three fraction digits, truncated (after rounding
    /// to the microsecond, so `string(from: date(from: "….678Z"))` gives back `.678`), as the
    /// Remote Config REST API writes times.
    /// Dates beyond year 9999 or not finite are written as the epoch.
    public static func millisecondString(from date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 253_402_300_800 else { return "1970-01-01T00:00:00.000Z" }
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let millis = (micros / 1000).rounded(.down)
        return string(from: Date(timeIntervalSince1970: millis / 1000))
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01.
    package static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private struct DigitReader {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index == bytes.count }

    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    mutating func digit() -> Int? {
        guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - 0x30)
    }

    mutating func number(digits: Int) -> Int? {
        var value = 0
        for _ in 0..<digits {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
