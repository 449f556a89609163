import CloudEvents
import FirebaseEmulator
import Foundation
import CloudFunctions
import Testing

@Suite("AuthTimestamp")
struct AuthTimestampTests {
    @Test("reads milliseconds from strings and numbers", arguments: [
        (JSONValue.string("1590489747123"), Int64?.some(1_590_489_747_123)),
        (.number(1_590_489_747_123), 1_590_489_747_123),
        (.number(12.9), 12),
        (.string("abc"), nil),
        (.string("99999999999999999999999"), nil),
        // The smallest Int64 has no positive counterpart: refused, not a crash.
        (.string("-9223372036854775808"), nil),
        (.number(1e300), nil),
        (.bool(true), nil),
    ])
    func milliseconds(value: JSONValue, expected: Int64?) {
        #expect(AuthTimestamp.milliseconds(from: value) == expected)
    }

    @Test("formats and parses RFC 3339")
    func rfc3339() {
        #expect(RFC3339Timestamp.millisecondString(from: AuthFixtures.created) == "2020-05-26T10:42:27.123Z")
        let parsed = RFC3339Timestamp.date(from: "2020-05-26T10:42:27.123Z")
        #expect(parsed.map(AuthTimestamp.milliseconds) == 1_590_489_747_123)
        #expect(RFC3339Timestamp.date(from: "2020-05-26T10:42:27Z") == AuthTimestamp.date(seconds: 1_590_489_747))
        #expect(RFC3339Timestamp.date(from: "yesterday") == nil)
        #expect(RFC3339Timestamp.millisecondString(from: AuthTimestamp.date(milliseconds: -1)) == "1969-12-31T23:59:59.999Z")
        #expect(RFC3339Timestamp.millisecondString(from: AuthTimestamp.date(milliseconds: 5)) == "1970-01-01T00:00:00.005Z")
    }

    @Test("clamps dates out of the JavaScript range instead of trapping")
    func clamps() {
        #expect(AuthTimestamp.milliseconds(.distantFuture) > 0)
        #expect(AuthTimestamp.milliseconds(Date(timeIntervalSince1970: .infinity)) == 0)
        #expect(AuthTimestamp.seconds(Date(timeIntervalSince1970: -1e300)) == -AuthTimestamp.maximumMilliseconds / 1000)
    }
}
