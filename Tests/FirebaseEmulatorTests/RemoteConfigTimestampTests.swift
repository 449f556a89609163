import Foundation
import FirebaseEmulator
import Testing

@Suite("Remote Config timestamps")
struct RemoteConfigTimestampTests {
    @Test(
        "parses RFC 3339 with any fraction and offsets",
        arguments: [
            ("2025-01-02T03:04:05Z", 1_735_787_045.0),
            ("2025-01-02T03:04:05.5Z", 1_735_787_045.5),
            ("2025-01-02T03:04:05.123456789Z", 1_735_787_045.123456789),
            ("2025-01-02T04:04:05+01:00", 1_735_787_045.0),
            ("2025-01-01T22:04:05-05:00", 1_735_787_045.0),
        ])
    func parses(text: String, seconds: Double) throws {
        let date = try #require(RemoteConfigTimestamp.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test(
        "rejects malformed timestamps",
        arguments: [
            "", "2025-01-02", "2025-01-02T03:04:05", "2025-13-02T03:04:05Z", "2025-02-30T03:04:05Z",
            "2025-01-02T03:04:05.Z", "2025-01-02T03:04:05.1234567890Z", "2025-01-02T03:04:05+0100",
        ])
    func rejects(text: String) {
        #expect(RemoteConfigTimestamp.parse(text) == nil)
    }

    @Test("formats UTC with truncated milliseconds")
    func formats() {
        #expect(
            RemoteConfigTimestamp.format(Date(timeIntervalSince1970: 1_735_787_045.6789)) == "2025-01-02T03:04:05.678Z")
        #expect(RemoteConfigTimestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    }

    @Test("formats a parsed timestamp back to the same text")
    func roundTrips() throws {
        for millis in stride(from: 0, to: 1000, by: 1) {
            let text = "2025-01-02T03:04:05." + String(format: "%03d", millis) + "Z"
            #expect(RemoteConfigTimestamp.format(try #require(RemoteConfigTimestamp.parse(text))) == text)
        }
    }

    @Test("parses zone-less local times in a named zone")
    func parsesLocal() throws {
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let date = try #require(RemoteConfigTimestamp.parseLocal("2025-06-01T00:00:00", in: zone))
        #expect(RemoteConfigTimestamp.format(date) == "2025-06-01T07:00:00.000Z")
    }
}
