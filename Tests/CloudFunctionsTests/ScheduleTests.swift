import CloudEvents
import CloudFunctions
import Foundation
import Testing

@Suite("Schedules: cron, App Engine phrases, time zones")
struct ScheduleTests {
    static func utc(_ text: String) -> Date { RFC3339Timestamp.date(from: text)! }

    static func next(_ schedule: Schedule, after text: String, count: Int) -> [String] {
        var cursor = utc(text)
        var found: [String] = []
        for _ in 0..<count {
            guard let next = schedule.nextFiring(after: cursor) else { break }
            found.append(RFC3339Timestamp.string(from: next))
            cursor = next
        }
        return found
    }

    @Test("unix-cron: ranges, steps, lists and names, on the days they name")
    func cron() throws {
        let weekdays = try Schedule("*/20 9-10 * * MON-FRI")
        // 2026-11-27 is a Friday.
        #expect(Self.next(weekdays, after: "2026-11-27T10:30:00Z", count: 3)
            == ["2026-11-27T10:40:00.000Z", "2026-11-30T09:00:00.000Z", "2026-11-30T09:20:00.000Z"])
        // Both day fields restricted: the 13th, and every Friday.
        let either = try Schedule("0 12 13 * 5")
        #expect(Self.next(either, after: "2026-11-01T00:00:00Z", count: 4)
            == ["2026-11-06T12:00:00.000Z", "2026-11-13T12:00:00.000Z", "2026-11-20T12:00:00.000Z",
                "2026-11-27T12:00:00.000Z"])
        // Written without '*', both day fields count either way, even one that names every day.
        #expect(Self.next(try Schedule("0 0 1-31 * MON"), after: "2026-11-27T12:00:00Z", count: 2)
            == ["2026-11-28T00:00:00.000Z", "2026-11-29T00:00:00.000Z"])
        // One starting with '*' makes a day match both: odd days that are Mondays.
        #expect(Self.next(try Schedule("0 0 */2 * MON"), after: "2026-11-01T00:00:00Z", count: 2)
            == ["2026-11-09T00:00:00.000Z", "2026-11-23T00:00:00.000Z"])
        let sundays = try Schedule("0 0 * jan,FEB 7")
        #expect(Self.next(sundays, after: "2026-12-01T00:00:00Z", count: 2)
            == ["2027-01-03T00:00:00.000Z", "2027-01-10T00:00:00.000Z"])
        #expect(Self.next(try Schedule("@daily"), after: "2026-11-28T05:00:00Z", count: 1) == ["2026-11-29T00:00:00.000Z"])
        // February 29th, in the next leap year.
        #expect(Self.next(try Schedule("0 0 29 2 *"), after: "2026-03-01T00:00:00Z", count: 1)
            == ["2028-02-29T00:00:00.000Z"])
    }

    @Test("App Engine phrases: intervals from midnight or a window, days and weekdays")
    func appEngine() throws {
        #expect(Self.next(try Schedule("every 5 minutes"), after: "2026-11-28T10:03:00Z", count: 2)
            == ["2026-11-28T10:05:00.000Z", "2026-11-28T10:10:00.000Z"])
        #expect(Self.next(try Schedule("every 90 mins"), after: "2026-11-28T22:00:00Z", count: 2)
            == ["2026-11-28T22:30:00.000Z", "2026-11-29T00:00:00.000Z"])
        #expect(Self.next(try Schedule("every 3 hours from 09:00 to 17:00"), after: "2026-11-28T12:00:00Z", count: 3)
            == ["2026-11-28T15:00:00.000Z", "2026-11-29T09:00:00.000Z", "2026-11-29T12:00:00.000Z"])
        #expect(Self.next(try Schedule("every day 03:00"), after: "2026-11-28T03:00:00Z", count: 1)
            == ["2026-11-29T03:00:00.000Z"])
        #expect(Self.next(try Schedule("every monday, thursday 09:30"), after: "2026-11-28T00:00:00Z", count: 2)
            == ["2026-11-30T09:30:00.000Z", "2026-12-03T09:30:00.000Z"])
    }

    @Test("what cannot be read is refused with what is wrong")
    func refused() {
        func message(_ expression: String, _ timeZone: String = "UTC") -> String {
            do {
                _ = try Schedule(expression, timeZone: timeZone)
                return "accepted"
            } catch {
                return error.message
            }
        }
        #expect(message("61 * * * *").contains("'61' is not a valid minute"))
        #expect(message("0 0 * *").contains("5 fields"))
        #expect(message("0 0 30 2 *").contains("never fires"))
        #expect(message("0 9-5 * * *").contains("runs backwards"))
        #expect(message("*/0 * * * *").contains("not a step"))
        #expect(message("0 3 * * *", "Mars/Olympus_Mons").contains("not a time zone"))
        #expect(message("every 30 seconds").contains("not an App Engine schedule"))
        #expect(message("every day 25:00").contains("not a time"))
        #expect(message("every 200000000000000000 hours").contains("from 1 minute to 24 hours"))
        #expect(message("5/9223372036854775807 * * * *").contains("not a step of a minute"))
        #expect(message("1st monday of month 09:00").contains("5 fields"))
    }

    @Test("clocks going forward: a daily time in the gap fires as it ends; an hourly schedule skips it")
    func springForward() throws {
        // Paris, 2026-03-29: 02:00 CET becomes 03:00 CEST (01:00 UTC).
        let daily = try Schedule("30 2 * * *", timeZone: "Europe/Paris")
        #expect(Self.next(daily, after: "2026-03-27T12:00:00Z", count: 3)
            == ["2026-03-28T01:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z"])
        let halfHourly = try Schedule("*/30 * * * *", timeZone: "Europe/Paris")
        #expect(Self.next(halfHourly, after: "2026-03-29T00:00:00Z", count: 3)
            == ["2026-03-29T00:30:00.000Z", "2026-03-29T01:00:00.000Z", "2026-03-29T01:30:00.000Z"])
    }

    @Test("clocks going back: a daily time fires once, at its first occurrence; an hourly one fires in both hours")
    func fallBack() throws {
        // Paris, 2026-10-25: 03:00 CEST becomes 02:00 CET (01:00 UTC); 02:00–02:59 happen twice.
        let daily = try Schedule("30 2 * * *", timeZone: "Europe/Paris")
        #expect(Self.next(daily, after: "2026-10-24T12:00:00Z", count: 2)
            == ["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"])
        let hourly = try Schedule("0 * * * *", timeZone: "Europe/Paris")
        #expect(Self.next(hourly, after: "2026-10-24T23:30:00Z", count: 3)
            == ["2026-10-25T00:00:00.000Z", "2026-10-25T01:00:00.000Z", "2026-10-25T02:00:00.000Z"])
    }

    @Test("firings(after:through:) lists each firing once, in order")
    func firingsInAWindow() throws {
        let schedule = try Schedule("every 15 minutes")
        let firings = schedule.firings(after: Self.utc("2026-11-28T10:00:00Z"), through: Self.utc("2026-11-28T11:00:00Z"))
        #expect(firings.map(RFC3339Timestamp.string(from:))
            == ["2026-11-28T10:15:00.000Z", "2026-11-28T10:30:00.000Z", "2026-11-28T10:45:00.000Z", "2026-11-28T11:00:00.000Z"])
    }
}
