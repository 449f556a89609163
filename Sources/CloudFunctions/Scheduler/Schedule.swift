import CloudEvents
import Foundation

/// When a scheduled function runs: a unix-cron expression or an App Engine `every …` phrase,
/// read on the wall clock of a time zone, as Cloud Scheduler reads them.
///
/// - unix-cron: five fields, `minute hour day-of-month month day-of-week`, each `*`, a number,
///   a name (`JAN`–`DEC`, `SUN`–`SAT`; 0 and 7 are Sunday), a range `a-b`, a step `*/n` or
///   `a-b/n`, or a list of those. When neither day field starts with `*`, a day matching either
///   one counts; otherwise a day must match both, as cron has it. `@hourly`, `@daily`, `@weekly`, `@monthly` and `@yearly` stand
///   for their usual expressions.
/// - App Engine: `every N minutes|hours [from HH:MM to HH:MM]` (counted from midnight, or from
///   the `from` time, each day), `every day HH:MM`, `every monday[,friday…] HH:MM`.
///
/// Daylight-saving changes, on the wall clock: a schedule that fires every hour fires at each
/// wall-clock time that exists, so twice in an hour that repeats and never in one that is
/// skipped; any other fires once a day at its times, at the first of a repeated time, and
/// at the end of the gap for a skipped one (02:30 becomes 03:00 when clocks go from 02:00 to
/// 03:00), as cron does.
public struct Schedule: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written.
    public let expression: String
    /// The time zone it is read in.
    public let timeZone: TimeZone
    /// The time zone's IANA name, as given.
    public let timeZoneIdentifier: String
    /// The wall-clock minutes after midnight at which it fires, ascending.
    let minutesOfDay: [Int]
    /// The days of the month (1–31) it fires on; `nil` for every one.
    let daysOfMonth: Set<Int>?
    /// The months (1–12); `nil` for every one.
    let months: Set<Int>?
    /// The days of the week (0 is Sunday); `nil` for every one.
    let daysOfWeek: Set<Int>?
    /// Whether a day matching either day field counts (cron's rule when neither starts with `*`).
    let eitherDay: Bool

    /// Reads `expression` in the IANA time zone `timeZone`.
    ///
    /// - Throws: ``ScheduleError`` naming what is wrong: the expression, the time zone, or a
    ///   schedule that never fires (February 30th).
    public init(_ expression: String, timeZone: String = "UTC") throws(ScheduleError) {
        guard let zone = TimeZone(identifier: timeZone) else {
            throw ScheduleError("'\(timeZone)' is not a time zone (use an IANA name such as Europe/Paris)")
        }
        let text = expression.trimmingCharacters(in: .whitespaces)
        let parts: (minutes: [Int], days: Set<Int>?, months: Set<Int>?, weekdays: Set<Int>?, eitherDay: Bool)
        if text.lowercased().hasPrefix("every ") {
            parts = try Self.appEngine(text)
        } else {
            parts = try Self.cron(Self.macros[text.lowercased()] ?? text)
        }
        self.expression = expression
        self.timeZone = zone
        timeZoneIdentifier = timeZone
        minutesOfDay = parts.minutes
        daysOfMonth = parts.days
        months = parts.months
        daysOfWeek = parts.weekdays
        eitherDay = parts.eitherDay
        guard nextFiring(after: Date(timeIntervalSince1970: 1_704_067_200)) != nil else {
            throw ScheduleError("'\(expression)' never fires: no month has such a day")
        }
    }

    public var description: String { "\(expression) (\(timeZoneIdentifier))" }

    /// The first moment after `date` at which it fires.
    public func nextFiring(after date: Date) -> Date? {
        let startDay = Int(((date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))) / 86_400)
            .rounded(.down)) - 1
        var found: (moment: Date, day: Int)?
        // Eight years and a day reach any day that exists (February 29th).
        for day in startDay...(startDay + 2_925) {
            // A fall-back change can put one day's firings after the next day's first ones: once
            // a day has a firing, the next day is looked at too.
            if let found, day > found.day + 1 { break }
            guard matches(day: day), let moment = firstFiring(onDay: day, after: date) else { continue }
            if found.map({ moment < $0.moment }) ?? true { found = (moment, found?.day ?? day) }
        }
        return found?.moment
    }

    /// Its firings after `start`, up to and including `end`, in order.
    public func firings(after start: Date, through end: Date) -> [Date] {
        var firings: [Date] = []
        var cursor = start
        while let next = nextFiring(after: cursor), next <= end {
            firings.append(next)
            cursor = next
        }
        return firings
    }

    /// Its latest firing after `start` and up to `end`, found without walking every firing of
    /// a long window (a schedule of every minute, missed for a month).
    package func latestFiring(after start: Date, through end: Date) -> Date? {
        var cursor = start
        let near = end.addingTimeInterval(-2 * 86_400)
        if near > cursor, let jumped = nextFiring(after: near), jumped <= end { cursor = near }
        var latest: Date?
        while let next = nextFiring(after: cursor), next <= end {
            latest = next
            cursor = next
        }
        return latest
    }

    /// Whether every hour of the day has a firing: then the schedule runs on elapsed time
    /// through a daylight-saving change.
    var repeatsHourly: Bool { Set(minutesOfDay.map { $0 / 60 }).count == 24 }

    /// Whether it fires on a day, counted from 1970-01-01 on the wall clock.
    func matches(day: Int) -> Bool {
        let (_, month, dayOfMonth) = RFC3339Timestamp.civilFromDays(day)
        let weekday = ((day % 7) + 11) % 7   // 1970-01-01 was a Thursday
        if let months, !months.contains(month) { return false }
        let dayOfMonthMatches = daysOfMonth?.contains(dayOfMonth) ?? true
        let dayOfWeekMatches = daysOfWeek?.contains(weekday) ?? true
        return eitherDay ? dayOfMonthMatches || dayOfWeekMatches : dayOfMonthMatches && dayOfWeekMatches
    }

    /// The first firing of a matching day after `date`.
    func firstFiring(onDay day: Int, after date: Date) -> Date? {
        let midnight = Double(day) * 86_400
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: midnight - 86_400))
        if offset == timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: midnight + 2 * 86_400)) {
            // No change of offset near this day (the common case): each wall-clock time is one
            // moment, and the first after `date` is found by halving.
            let threshold = date.timeIntervalSince1970 - midnight + Double(offset)
            var low = 0, high = minutesOfDay.count
            while low < high {
                let middle = (low + high) / 2
                if Double(minutesOfDay[middle] * 60) > threshold { high = middle } else { low = middle + 1 }
            }
            guard low < minutesOfDay.count else { return nil }
            return Date(timeIntervalSince1970: midnight + Double(minutesOfDay[low] * 60 - offset))
        }
        return firings(onDay: day).first { $0 > date }
    }

    /// The moments of a matching day's firings, ascending.
    func firings(onDay day: Int) -> [Date] {
        let midnight = Double(day) * 86_400
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: midnight - 86_400))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: midnight + 2 * 86_400))
        var moments = Set<Date>()
        for minute in minutesOfDay {
            let wall = midnight + Double(minute * 60)
            let instants = Set([before, after]).map { wall - Double($0) }
                .filter { timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: $0)) == Int(wall - $0) }
                .sorted()
            if instants.isEmpty {
                // A skipped time: hourly schedules skip it, others fire as the gap ends.
                if !repeatsHourly { moments.insert(gapEnd(wall: wall, before: before, after: after)) }
            } else if repeatsHourly {
                for instant in instants { moments.insert(Date(timeIntervalSince1970: instant)) }
            } else {
                moments.insert(Date(timeIntervalSince1970: instants[0]))
            }
        }
        return moments.sorted()
    }

    /// The moment the offset changes from `before` to `after` around a skipped wall-clock time.
    private func gapEnd(wall: Double, before: Int, after: Int) -> Date {
        var low = wall - Double(max(before, after)) - 1
        var high = wall - Double(min(before, after)) + 1
        while high - low > 1 {
            let middle = ((low + high) / 2).rounded(.down)
            if timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: middle)) == after { high = middle } else { low = middle }
        }
        return Date(timeIntervalSince1970: high)
    }

    static let macros = [
        "@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0",
        "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
    ]
    static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// A unix-cron expression's parts.
    static func cron(_ text: String) throws(ScheduleError) -> ([Int], Set<Int>?, Set<Int>?, Set<Int>?, Bool) {
        let fields = text.split(whereSeparator: \.isWhitespace).map(String.init)
        // Minutes and hours are numbers: letters there mean another syntax (an App Engine
        // ordinal form, "1st monday of month 09:00", which is not read).
        guard fields.count == 5, !fields[0...1].contains(where: { $0.contains(where: \.isLetter) }) else {
            throw ScheduleError("'\(text)' is not a schedule: unix-cron has 5 fields (minute hour day-of-month month "
                + "day-of-week), and the App Engine forms read are 'every N minutes|hours [from HH:MM to HH:MM]', "
                + "'every day HH:MM' and 'every monday[,friday] HH:MM'")
        }
        let minutes = try field(fields[0], "minute", 0...59)
        let hours = try field(fields[1], "hour", 0...23)
        let days = try field(fields[2], "day of the month", 1...31)
        let months = try field(fields[3], "month", 1...12, names: monthNames, nameBase: 1)
        var weekdays = try field(fields[4], "day of the week", 0...7, names: dayNames, nameBase: 0)
        if weekdays.remove(7) != nil { weekdays.insert(0) }
        let minutesOfDay = hours.sorted().flatMap { hour in minutes.sorted().map { hour * 60 + $0 } }
        return (minutesOfDay, days.count == 31 ? nil : days, months.count == 12 ? nil : months,
            weekdays.count == 7 ? nil : weekdays, !fields[2].hasPrefix("*") && !fields[4].hasPrefix("*"))
    }

    /// One cron field's values.
    static func field(
        _ text: String, _ name: String, _ range: ClosedRange<Int>, names: [String] = [], nameBase: Int = 0
    ) throws(ScheduleError) -> Set<Int> {
        func value(_ token: Substring) throws(ScheduleError) -> Int {
            if let number = Int(token), range.contains(number) { return number }
            if let index = names.firstIndex(of: token.lowercased()) { return index + nameBase }
            throw ScheduleError("'\(token)' is not a valid \(name) (\(range.lowerBound)–\(range.upperBound)"
                + (names.isEmpty ? ")" : " or a name)"))
        }
        var values = Set<Int>()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), !parts[0].isEmpty else {
                throw ScheduleError("'\(item)' is not a \(name) field item")
            }
            var step = 1
            if parts.count == 2 {
                guard let number = Int(parts[1]), number > 0, number <= range.count else {
                    throw ScheduleError("'\(parts[1])' is not a step of a \(name) (1–\(range.count))")
                }
                step = number
            }
            let bounds: ClosedRange<Int>
            if parts[0] == "*" {
                bounds = range
            } else if let dash = parts[0].firstIndex(of: "-") {
                let low = try value(parts[0][..<dash]), high = try value(parts[0][parts[0].index(after: dash)...])
                guard low <= high else { throw ScheduleError("the \(name) range '\(parts[0])' runs backwards") }
                bounds = low...high
            } else {
                let single = try value(parts[0])
                bounds = single...(parts.count == 2 ? range.upperBound : single)
            }
            values.formUnion(stride(from: bounds.lowerBound, through: bounds.upperBound, by: step))
        }
        return values
    }

    /// An App Engine `every …` phrase's parts.
    static func appEngine(_ text: String) throws(ScheduleError) -> ([Int], Set<Int>?, Set<Int>?, Set<Int>?, Bool) {
        let words = text.lowercased().replacingOccurrences(of: ", ", with: ",")
            .split(whereSeparator: \.isWhitespace).map(String.init)
        let refused = ScheduleError("'\(text)' is not an App Engine schedule this runtime reads: use 'every N minutes', "
            + "'every N hours [from HH:MM to HH:MM]', 'every day HH:MM' or 'every monday[,friday] HH:MM'")
        guard words.count >= 3 else { throw refused }
        if let count = Int(words[1]) {
            let unit: Int
            switch words[2] {
            case "minute", "minutes", "min", "mins": unit = 1
            case "hour", "hours", "hr", "hrs": unit = 60
            default: throw refused
            }
            guard (1...1_440).contains(count), count * unit <= 1_440 else {
                throw ScheduleError("'\(text)': the interval must be from 1 minute to 24 hours")
            }
            let interval = count * unit
            var rest = Array(words.dropFirst(3))
            if rest.last == "synchronized" { rest.removeLast() }
            var first = 0, last = 1_439
            if !rest.isEmpty {
                guard rest.count == 4, rest[0] == "from", rest[2] == "to" else { throw refused }
                first = try minute(of: rest[1], in: text)
                last = try minute(of: rest[3], in: text)
                if last < first { last += 1_440 }
            }
            let minutes = Set(stride(from: first, through: last, by: interval).map { $0 % 1_440 })
            return (minutes.sorted(), nil, nil, nil, false)
        }
        guard words.count == 3 else { throw refused }
        let time = try minute(of: words[2], in: text)
        if words[1] == "day" { return ([time], nil, nil, nil, false) }
        var weekdays = Set<Int>()
        for name in words[1].split(separator: ",") {
            guard let index = dayNames.indices.first(where: { name == dayNames[$0] || name == fullDayNames[$0] }) else {
                throw refused
            }
            weekdays.insert(index)
        }
        return ([time], nil, nil, weekdays, false)
    }

    static let fullDayNames = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    /// `HH:MM` as minutes after midnight.
    static func minute(of time: String, in text: String) throws(ScheduleError) -> Int {
        let parts = time.split(separator: ":")
        guard parts.count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0...23).contains(hour), (0...59).contains(minute)
        else { throw ScheduleError("'\(time)' in '\(text)' is not a time (HH:MM, 00:00 to 23:59)") }
        return hour * 60 + minute
    }
}
