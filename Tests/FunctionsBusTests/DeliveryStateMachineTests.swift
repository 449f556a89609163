import CloudFunctions
@testable import FunctionsBus
import Foundation
import Testing

@Suite("Delivery state machine")
struct DeliveryStateMachineTests {
    let t0 = Date(timeIntervalSince1970: 1_000)

    func options(_ changes: FunctionOption...) -> DeliveryStateMachine.Limits { .init(FunctionOptions().with(changes)) }

    @Test("succeeds on the first attempt")
    func success() {
        var machine = DeliveryStateMachine(origin: t0)
        #expect(machine.start(now: t0, limits: options()) == .run(attempt: 1, deadline: t0.addingTimeInterval(60)))
        #expect(machine.finish(succeeded: true, now: t0, limits: options(), random: 0) == .done)
        #expect(machine.state == .finished)
    }

    @Test("retries with doubling delays up to the maximum, then the window ends it")
    func retrySchedule() {
        let opts = options(.retry(true), .maxEventAge(.seconds(2000)))
        var machine = DeliveryStateMachine(origin: t0)
        var now = t0
        var delays: [TimeInterval] = []
        while true {
            guard case .run = machine.start(now: now, limits: opts) else { break }
            switch machine.finish(succeeded: false, now: now, limits: opts, random: 0) {
            case .retry(let at):
                delays.append(at.timeIntervalSince(now))
                now = at
                machine.retryDue()
            case .deadLetter(let reason):
                #expect(reason == .exhausted)
                #expect(delays == [10, 20, 40, 80, 160, 320, 600, 600])
                #expect(machine.attempts == 9)
                return
            case .done:
                Issue.record("a failure cannot succeed")
                return
            }
        }
        Issue.record("the retry window never closed")
    }

    @Test("expires an event older than the maximum age before it runs")
    func expiry() {
        var machine = DeliveryStateMachine(origin: t0)
        #expect(machine.start(now: t0.addingTimeInterval(3601), limits: options(.maxEventAge(.seconds(3600))))
            == .expire)
        #expect(machine.attempts == 0)
    }
}
