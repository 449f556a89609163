import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("Analytics Measurement Protocol requests")
struct AnalyticsMeasurementRequestTests {
    private let body = """
        {"app_instance_id":"0123456789ABCDEF0123456789abcdef","user_id":"u1","timestamp_micros":1700000000000000,
        "user_properties":{"favorite_food":{"value":"pizza"},"cleared":{"value":null}},"non_personalized_ads":false,
        "events":[{"name":"level_up","params":{"level":5,"character":"hero"}},
                  {"name":"tutorial_begin","timestamp_micros":"1700000000500000"}]}
        """

    @Test("decodes the documented body shape")
    func decodes() throws {
        let request = try AnalyticsMeasurementRequest.parse(JSONValue(parsing: body))
        #expect(request.appInstanceId == "0123456789ABCDEF0123456789abcdef")
        #expect(request.userId == "u1")
        #expect(request.timestampMicros == 1_700_000_000_000_000)
        #expect(request.userProperties == ["favorite_food": "pizza", "cleared": .null])
        #expect(request.events.map(\.name) == ["level_up", "tutorial_begin"])
        #expect(request.events[0].params == ["level": 5, "character": "hero"])
        #expect(request.events[1].timestampMicros == 1_700_000_000_500_000)
        try request.validate()
        let viaDecoder = try JSONDecoder().decode(AnalyticsMeasurementRequest.self, from: Data(body.utf8))
        #expect(viaDecoder == request)
    }

    @Test("events carry the instance, user and the most specific timestamp")
    func events() throws {
        let request = try AnalyticsMeasurementRequest.parse(JSONValue(parsing: body))
        let events = request.analyticsEvents(receivedAt: Date(timeIntervalSince1970: 1))
        #expect(events[0].timestamp == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(events[1].timestamp == Date(timeIntervalSince1970: 1_700_000_000.5))
        #expect(events.allSatisfy { $0.userId == "u1" && $0.appInstanceId == request.appInstanceId })
        let bare = AnalyticsMeasurementRequest(appInstanceId: "x", events: [AnalyticsMeasurementEvent(name: "e")])
        #expect(bare.analyticsEvents(receivedAt: Date(timeIntervalSince1970: 9))[0].timestamp
            == Date(timeIntervalSince1970: 9))
    }

    @Test("malformed bodies are rejected", arguments: [
        #"{"events":[]}"#, #"{"app_instance_id":1,"events":[]}"#, #"{"app_instance_id":"a"}"#,
        #"{"app_instance_id":"a","events":[{"params":{}}]}"#,
        #"{"app_instance_id":"a","events":[{"name":"e","params":[]}]}"#,
        #"{"app_instance_id":"a","timestamp_micros":1.5,"events":[]}"#,
        #"{"app_instance_id":"a","user_properties":{"p":"v"},"events":[]}"#, "[]",
    ])
    func malformed(json: String) throws {
        let value = try JSONValue(parsing: json)
        let error = FCMTestFixtures.error { () throws(ServiceError) in
            _ = try AnalyticsMeasurementRequest.parse(value)
        }
        #expect(error?.status == "INVALID_ARGUMENT")
    }

    @Test("strict validation checks the instance id, event count, events and user properties")
    func strictValidation() throws {
        let id = "0123456789abcdef0123456789abcdef"
        func failure(_ request: AnalyticsMeasurementRequest, seen: Set<String> = []) -> String? {
            FCMTestFixtures.error { () throws(ServiceError) in try request.validate(seenEventNames: seen) }?.message
        }
        let one = [AnalyticsMeasurementEvent(name: "e")]
        #expect(failure(AnalyticsMeasurementRequest(appInstanceId: "xyz", events: one))?.contains("32 hex") == true)
        #expect(failure(AnalyticsMeasurementRequest(appInstanceId: id, events: [])) != nil)
        let many = (0..<26).map { AnalyticsMeasurementEvent(name: "e\($0)") }
        #expect(failure(AnalyticsMeasurementRequest(appInstanceId: id, events: many)) != nil)
        let badSecond = [AnalyticsMeasurementEvent(name: "e"), AnalyticsMeasurementEvent(name: "ga_e")]
        #expect(failure(AnalyticsMeasurementRequest(appInstanceId: id, events: badSecond))?
            .contains("'events[1].name'") == true)
        let seen = Set((0..<499).map { "n\($0)" })
        let twoNew = [AnalyticsMeasurementEvent(name: "x1"), AnalyticsMeasurementEvent(name: "x2")]
        #expect(failure(AnalyticsMeasurementRequest(appInstanceId: id, events: twoNew), seen: seen)?
            .contains("'events[1].name'") == true)
        let props = AnalyticsMeasurementRequest(appInstanceId: id, userProperties: ["user_id": "v"], events: one)
        #expect(failure(props)?.contains("Invalid user property name") == true)
        let numeric = AnalyticsMeasurementRequest(appInstanceId: id, userProperties: ["score": 12], events: one)
        #expect(failure(numeric) == nil)
    }
}
