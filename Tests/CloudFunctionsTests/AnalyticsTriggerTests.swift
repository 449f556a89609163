import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import Foundation
import Synchronization
import Testing

@Suite("Analytics.event(_:).onLog")
struct AnalyticsTriggerTests {
    final class Received: Sendable {
        let events = Mutex<[(AnalyticsLogEvent, String)]>([])
    }

    static let user = AnalyticsUserDimensions(
        userId: "u1",
        appInfo: AnalyticsAppInfo(appId: "1:1:ios:ab", appInstanceId: "0123456789abcdef0123456789abcdef"),
        userProperties: ["tier": AnalyticsUserProperty(value: "gold", setTime: Date(timeIntervalSince1970: 1_600_000_000))]
    )

    @Test("runs for its event name only, with the decoded event")
    func filtersByName() async throws {
        let received = Received()
        var functions = FunctionRegistry()
        functions["onPurchase"] = Analytics.event("purchase").onLog { event, context in
            received.events.withLock { $0.append((event, context.resource)) }
        }
        let runtime = try TestRuntime(functions, project: "p1")
        await runtime.withRunning {
            let logTime = Date(timeIntervalSince1970: 1_700_000_000.25)
            let purchase = AnalyticsLogEvent(
                name: "purchase", params: ["value": 9.5, "count": 2, "currency": "EUR"], logTime: logTime, user: Self.user
            )
            #expect(await runtime.deliver(.analyticsLogged(purchase, project: "p1")) == ["onPurchase"])
            let refund = AnalyticsLogEvent(name: "refund", logTime: logTime, user: Self.user)
            #expect(await runtime.deliver(.analyticsLogged(refund, project: "p1")) == [])
            let events = received.events.withLock { $0 }
            #expect(events.count == 1)
            #expect(events.first?.0 == purchase)
            #expect(events.first?.0.reportingDate == "20231114")
            #expect(events.first?.1 == "projects/p1/apps/1:1:ios:ab")
        }
    }

    @Test("the trigger filters on the subject in its manifest entry")
    func trigger() {
        let function = Analytics.event("purchase").onLog { _, _ in }
        #expect(function.eventTrigger?.eventType == "google.firebase.analytics.log.v1.written")
        #expect(function.eventTrigger?.filters == ["subject": "events/purchase"])
        #expect(Analytics.event("").onLog { _, _ in }.problems == ["an Analytics trigger needs an event name"])
    }

    @Test("decodes the legacy wire with numeric intValue, floatValue and no userDim")
    func legacyWire() throws {
        let wire = #"""
            {"eventDim":[{"name":"level_up","params":{"level":{"intValue":7},"score":{"floatValue":"1.5"},
            "who":{"stringValue":"ann"}},"timestampMicros":1600000000000000,"date":"20200913"}]}
            """#
        let event = try JSONDecoder().decode(AnalyticsLogEvent.self, from: Data(wire.utf8))
        #expect(event.name == "level_up")
        #expect(event.params == ["level": 7, "score": 1.5, "who": "ann"])
        #expect(event.logTime == Date(timeIntervalSince1970: 1_600_000_000))
        #expect(event.reportingDate == "20200913")
        #expect(event.user == nil)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(AnalyticsLogEvent.self, from: Data("{}".utf8)) }
    }
}
