import CloudEvents
import Foundation
import Testing

@Suite("RFC 3339 timestamps")
struct RFC3339TimestampTests {
    @Test(
        "reads the forms producers write",
        arguments: [
            ("2020-09-29T11:32:00Z", 1_601_379_120.0),
            ("2020-09-29T11:32:00.000Z", 1_601_379_120.0),
            ("2020-11-16T16:35:33.569229Z", 1_605_544_533.569229),
            ("2020-09-29t11:32:00z", 1_601_379_120.0),
            ("2020-09-29T13:32:00+02:00", 1_601_379_120.0),
            ("2020-09-29 11:32:00.5-00:30", 1_601_380_920.5),
            ("1969-12-31T23:59:59Z", -1.0),
            ("2024-02-29T00:00:00Z", 1_709_164_800.0),
            ("2025-01-02T03:04:05.123456789Z", 1_735_787_045.123456789),
        ]
    )
    func parses(text: String, seconds: Double) throws {
        let date = try #require(RFC3339Timestamp.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test(
        "rejects what is not RFC 3339",
        arguments: ["", "2020-09-29", "2020-09-29T11:32:00", "2020-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
            "2020-09-29T11:32:00.Z", "2020-09-29T25:00:00Z", "2020-09-29T11:32:00+0200", "2020-09-29T11:32:00Zjunk"]
    )
    func rejects(text: String) {
        #expect(RFC3339Timestamp.date(from: text) == nil)
    }

    @Test("writes UTC with milliseconds, or microseconds when needed")
    func formats() {
        #expect(RFC3339Timestamp.string(from: Date(timeIntervalSince1970: 1_735_787_045.678)) == "2025-01-02T03:04:05.678Z")
        #expect(RFC3339Timestamp.string(from: Date(timeIntervalSince1970: 1_605_544_533.569229))
            == "2020-11-16T16:35:33.569229Z")
        #expect(RFC3339Timestamp.string(from: Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59.000Z")
        // No RFC 3339 form (a lenient decoder read 1e300 or "nan" as a date): the epoch, not a trap.
        for seconds in [Double.nan, .infinity, 1e300, -1e300, 253_402_300_800] {
            #expect(RFC3339Timestamp.string(from: Date(timeIntervalSince1970: seconds)) == "1970-01-01T00:00:00.000Z")
        }
    }

    @Test("writes milliseconds truncated, as the Remote Config API does, and reads them back")
    func millisecondsRoundTrip() throws {
        #expect(RFC3339Timestamp.millisecondString(from: Date(timeIntervalSince1970: 1_735_787_045.6789))
            == "2025-01-02T03:04:05.678Z")
        #expect(RFC3339Timestamp.millisecondString(from: Date(timeIntervalSince1970: .infinity))
            == "1970-01-01T00:00:00.000Z")
        for millis in 0..<1000 {
            let text = "2025-01-02T03:04:05." + String(format: "%03d", millis) + "Z"
            #expect(RFC3339Timestamp.millisecondString(from: try #require(RFC3339Timestamp.date(from: text))) == text)
        }
    }
}
