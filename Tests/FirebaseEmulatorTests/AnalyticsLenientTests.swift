import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("Analytics lenient SDK behaviour")
struct AnalyticsLenientTests {
    private func event(_ name: String, _ params: [String: JSONValue] = [:]) -> AnalyticsEvent {
        AnalyticsEvent(name: name, params: params, timestamp: Date(timeIntervalSince1970: 5), appInstanceId: "i")
    }

    @Test("an invalid event name drops the event and logs an error event with code 2")
    func invalidName() throws {
        let result = AnalyticsValidation.lenient(event("firebase_bad", ["a": 1]), seenEventNames: [])
        #expect(result.event == nil)
        #expect(result.errors == [.invalidEventName("firebase_bad")])
        let errorEvent = try #require(result.errorEvent)
        #expect(errorEvent.name == "error")
        #expect(errorEvent.params == ["firebase_error": 2, "firebase_error_value": "firebase_bad"])
        #expect(result.errors.first?.firebaseErrorCode == 2)
    }

    @Test("bad parameters are dropped and the first problem is recorded on the event")
    func badParameters() throws {
        let params: [String: JSONValue] = ["a_long": .string(String(repeating: "x", count: 101)), "b_ok": "fine",
                                           "c-bad": 1, "d_bool": true]
        let result = AnalyticsValidation.lenient(event("e", params), seenEventNames: [])
        let kept = try #require(result.event)
        #expect(kept.params == ["b_ok": "fine", "firebase_error": 4, "firebase_error_value": "a_long"])
        #expect(result.errors == [.parameterValueTooLong("a_long"), .invalidParameterName("c-bad"),
                                  .unsupportedParameterValue("d_bool")])
        #expect(result.errors.map(\.firebaseErrorCode) == [4, 3, nil])
    }

    @Test("more than 25 parameters keeps the first 25 by name and logs code 5")
    func tooManyParameters() throws {
        let params = Dictionary(uniqueKeysWithValues: (10..<40).map { ("p\($0)", JSONValue.number(Double($0))) })
        let result = AnalyticsValidation.lenient(event("e", params), seenEventNames: [])
        let kept = try #require(result.event)
        #expect(kept.params["p34"] == 34)
        #expect(kept.params["p35"] == nil)
        #expect(kept.params["firebase_error"] == 5)
        #expect(result.errors == [.tooManyParameters(30)])
    }

    @Test("a valid event is kept unchanged; a 501st name is dropped without a code")
    func validAndDistinct() {
        let good = event("e", ["a": 1])
        #expect(AnalyticsValidation.lenient(good, seenEventNames: []) == AnalyticsLenientResult(event: good))
        let seen = Set((0..<500).map { "n\($0)" })
        let dropped = AnalyticsValidation.lenient(good, seenEventNames: seen)
        #expect(dropped.event == nil && dropped.errorEvent == nil)
        #expect(dropped.errors.first?.firebaseErrorCode == nil)
    }

    @Test("user properties map to codes 6 and 7")
    func userProperties() {
        #expect(AnalyticsValidation.lenientUserProperty(name: "ok", value: "v") == nil)
        #expect(AnalyticsValidation.lenientUserProperty(name: "user_id", value: "v")?.firebaseErrorCode == 6)
        #expect(AnalyticsValidation.lenientUserProperty(name: "ok", value: String(repeating: "v", count: 37))?
            .firebaseErrorCode == 7)
    }
}
