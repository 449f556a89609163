import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("AnalyticsService")
struct AnalyticsServiceTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000.5)
    static let instance = "0123456789abcdef0123456789abcdef"
    static let appId = "1:1234567890:ios:0a1b2c3d"

    let store: EmulatorStore
    let clock = ManualClock(now: start)
    let recorder = AuthEventRecorder()
    let service: AnalyticsService

    init(directory: URL? = nil) throws {
        store = try EmulatorStore(directory: directory)
        service = try AnalyticsService(store: store, project: "demo-analytics", clock: clock, emit: recorder.emit)
    }

    func request(
        _ events: [AnalyticsMeasurementEvent],
        properties: [String: JSONValue] = [:],
        instance: String = instance,
        userId: String? = nil
    ) -> AnalyticsMeasurementRequest {
        AnalyticsMeasurementRequest(appInstanceId: instance, userId: userId, userProperties: properties, events: events)
    }

    func message(_ body: () async throws -> Void) async -> String? { await AuthServiceHarness.error(body)?.message }

    @Test("logs events and queries them by app instance, name and limit, newest last")
    func logAndQuery() async throws {
        try await service.logEvents(
            request([
                AnalyticsMeasurementEvent(name: "view_item", params: ["item": "sku1"]),
                AnalyticsMeasurementEvent(name: "purchase", params: ["value": 9.5, "count": 2]),
            ]),
            appId: Self.appId
        )
        clock.advance(by: .seconds(1))
        try await service.logEvents(request([AnalyticsMeasurementEvent(name: "view_item", params: ["item": "sku2"])]),
                              appId: Self.appId)
        let all = try service.events(appInstanceId: Self.instance)
        #expect(all.map(\.name) == ["view_item", "purchase", "view_item"])
        #expect(all.map(\.timestamp) == [Self.start, Self.start, Self.start.addingTimeInterval(1)])
        #expect(try service.events(appInstanceId: Self.instance, name: "view_item").map { $0.params["item"] }
            == ["sku1", "sku2"])
        #expect(try service.events(appInstanceId: Self.instance, limit: 1).map { $0.params["item"] } == ["sku2"])
        #expect(try service.events(appInstanceId: "ffffffffffffffffffffffffffffffff").isEmpty)
        #expect(try service.eventNames(appInstanceId: Self.instance) == ["view_item", "purchase"])
    }

    @Test("an event's own timestamp wins over the request's and the clock")
    func timestamps() async throws {
        var body = request([AnalyticsMeasurementEvent(name: "a", timestampMicros: 1_600_000_000_123_456),
                            AnalyticsMeasurementEvent(name: "b")])
        body.timestampMicros = 1_650_000_000_000_000
        let events = try await service.logEvents(body, appId: Self.appId)
        #expect(events.map(\.timestamp) == [
            Date(timeIntervalSince1970: 1_600_000_000.123456), Date(timeIntervalSince1970: 1_650_000_000),
        ])
    }

    @Test("user properties are set and cleared per app instance and travel with the events")
    func userProperties() async throws {
        try await service.logEvents(request([AnalyticsMeasurementEvent(name: "a")], properties: ["tier": "gold", "age": 30]),
                              appId: Self.appId)
        #expect(try service.userProperties(appInstanceId: Self.instance)
            == ["tier": AnalyticsUserProperty(value: "gold", setTime: Self.start),
                "age": AnalyticsUserProperty(value: "30", setTime: Self.start)])
        recorder.reset()
        try await service.logEvents(request([AnalyticsMeasurementEvent(name: "b")], properties: ["tier": nil]),
                              appId: Self.appId)
        #expect(try service.userProperties(appInstanceId: Self.instance).keys.sorted() == ["age"])
        let data = try #require(recorder.events.first?.data)
        let logged = try JSONDecoder().decode(AnalyticsLogEvent.self, from: data)
        #expect(logged.user?.userProperties.keys.sorted() == ["age"])
        #expect(try service.userProperties(appInstanceId: "ffffffffffffffffffffffffffffffff").isEmpty)
    }

    @Test("each logged event emits google.firebase.analytics.log.v1.written with the legacy wire data")
    func emittedEvents() async throws {
        try await service.logEvents(
            request([
                AnalyticsMeasurementEvent(name: "purchase", params: ["value": 9.5, "count": 2, "currency": "EUR"]),
                AnalyticsMeasurementEvent(name: "refund"),
            ], properties: ["tier": "gold"], userId: "u-1"),
            appId: Self.appId
        )
        let events = recorder.events
        #expect(events.map(\.type) == Array(repeating: "google.firebase.analytics.log.v1.written", count: 2))
        #expect(events.map(\.source) == Array(
            repeating: "//firebaseanalytics.googleapis.com/projects/demo-analytics/apps/\(Self.appId)", count: 2))
        #expect(events.map(\.subject) == ["events/purchase", "events/refund"])
        #expect(events.first?.time == Self.start)
        let wire = try JSONValue(parsing: try #require(events.first?.data))
        let dimension = try #require(wire["eventDim"]?.arrayValue?.first)
        #expect(dimension["name"] == "purchase")
        #expect(dimension["params"] == [
            "value": ["doubleValue": 9.5], "count": ["intValue": "2"], "currency": ["stringValue": "EUR"],
        ])
        #expect(dimension["timestampMicros"] == "1700000000500000")
        #expect(dimension["date"] == "20231114")
        #expect(wire["userDim"]?["appInfo"] == ["appId": .string(Self.appId), "appInstanceId": .string(Self.instance)])
        #expect(wire["userDim"]?["userId"] == "u-1")
        #expect(wire["userDim"]?["userProperties"]?["tier"]?["value"] == ["stringValue": "gold"])
        let logged = try JSONDecoder().decode(AnalyticsLogEvent.self, from: try #require(events.first?.data))
        #expect(logged.name == "purchase")
        #expect(logged.params == ["value": 9.5, "count": 2, "currency": "EUR"])
        #expect(logged.logTime == Self.start)
        #expect(logged.reportingDate == "20231114")
        #expect(logged.user?.appInfo == AnalyticsAppInfo(appId: Self.appId, appInstanceId: Self.instance))
        #expect(logged.user?.userProperties["tier"] == AnalyticsUserProperty(value: "gold", setTime: Self.start))
    }

    static let invalid: [(AnalyticsMeasurementRequest, String, String)] = [
        (AnalyticsMeasurementRequest(appInstanceId: instance, events: [.init(name: "a")]), "",
         "Missing 'firebase_app_id': the Firebase app id is required."),
        (AnalyticsMeasurementRequest(appInstanceId: "xyz", events: [.init(name: "a")]), appId,
         #"Invalid app_instance_id "xyz": expected 32 hex digits."#),
        (AnalyticsMeasurementRequest(appInstanceId: instance, events: []), appId,
         "Invalid events: a request carries 1 to 25 events, got 0."),
        (AnalyticsMeasurementRequest(appInstanceId: instance, events: [.init(name: "ok"), .init(name: "first_open")]),
         appId, #"Invalid event name "first_open" at 'events[1].name': the name is reserved."#),
        (AnalyticsMeasurementRequest(appInstanceId: instance, events: [.init(name: "firebase_x")]), appId,
         #"Invalid event name "firebase_x" at 'events[0].name': the prefix "firebase_" is reserved."#),
        (AnalyticsMeasurementRequest(appInstanceId: instance, events: [.init(name: "a", params: ["v": .array([])])]),
         appId, "Invalid parameter value at 'events[0].params.v': only strings, integers and doubles are allowed."),
        (AnalyticsMeasurementRequest(appInstanceId: instance, userProperties: ["user_id": "x"], events: [.init(name: "a")]),
         appId, #"Invalid user property name "user_id" at 'user_properties': the name is reserved."#),
        (AnalyticsMeasurementRequest(appInstanceId: instance, userProperties: ["p": .bool(true)], events: [.init(name: "a")]),
         appId, "Invalid user property value at 'user_properties.p.value': expected a string or number."),
    ]

    @Test("invalid requests throw INVALID_ARGUMENT and store and emit nothing", arguments: invalid)
    func invalidRequests(body: AnalyticsMeasurementRequest, appId: String, expected: String) async throws {
        let error = await AuthServiceHarness.error { try await service.logEvents(body, appId: appId) }
        #expect(error?.message == expected)
        #expect(error?.httpStatus == 400)
        #expect(error?.status == "INVALID_ARGUMENT")
        #expect(try service.events(appInstanceId: Self.instance).isEmpty)
        #expect(try service.userProperties(appInstanceId: Self.instance).isEmpty)
        #expect(recorder.events.isEmpty)
    }

    @Test("an app instance may log at most 500 distinct event names; known names still log")
    func distinctNameLimit() async throws {
        for batch in 0..<20 {
            let events = (0..<25).map { AnalyticsMeasurementEvent(name: "event_\(batch * 25 + $0)") }
            try await service.logEvents(request(events), appId: Self.appId)
        }
        #expect(try service.eventNames(appInstanceId: Self.instance).count == 500)
        recorder.reset()
        await #expect(message { try await service.logEvents(request([.init(name: "event_0"), .init(name: "one_more")]),
                                                appId: Self.appId) }
            == "Too many distinct event names at 'events[1].name': an app instance may log at most 500.")
        #expect(recorder.events.isEmpty)
        #expect(try service.events(appInstanceId: Self.instance).count == 500)
        try await service.logEvents(request([.init(name: "event_499")]), appId: Self.appId)
        let other = "ffffffffffffffffffffffffffffffff"
        try await service.logEvents(request([.init(name: "one_more")], instance: other), appId: Self.appId)
        #expect(recorder.events.count == 2)
    }

    @Test("a project holds at most 25 user property names")
    func userPropertyLimit() async throws {
        var properties: [String: JSONValue] = [:]
        for index in 0..<25 { properties["p\(index)"] = "v" }
        try await service.logEvents(request([.init(name: "a")], properties: properties), appId: Self.appId)
        let other = "ffffffffffffffffffffffffffffffff"
        await #expect(message { try await service.logEvents(request([.init(name: "a")], properties: ["p25": "v"], instance: other),
                                                appId: Self.appId) }
            == "Too many user properties at 'user_properties': 26, the limit is 25 per project.")
        try await service.logEvents(request([.init(name: "a")], properties: ["p0": "w"], instance: other), appId: Self.appId)
        #expect(try service.userProperties(appInstanceId: other)["p0"]?.value == "w")
    }

    @Test("events, names and user properties survive reopening the store")
    func persistence() async throws {
        let directory = AuthServiceHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let first = try AnalyticsServiceTests(directory: directory)
            try await first.service.logEvents(first.request([.init(name: "a", params: ["k": 1])], properties: ["tier": "gold"]),
                                        appId: Self.appId)
        }
        let second = try AnalyticsServiceTests(directory: directory)
        #expect(try second.service.events(appInstanceId: Self.instance).map(\.params) == [["k": 1]])
        #expect(try second.service.eventNames(appInstanceId: Self.instance) == ["a"])
        #expect(try second.service.userProperties(appInstanceId: Self.instance)["tier"]?.value == "gold")
        #expect(try second.store.pendingEvents().map(\.event.subject) == ["events/a"])
    }
}
