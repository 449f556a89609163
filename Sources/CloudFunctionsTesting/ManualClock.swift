import CloudFunctions
import Foundation
import Synchronization

/// A clock that moves only when a test says so, for exact, sleep-free tests of retries,
/// timeouts and event ages.
///
/// ```swift
/// let clock = ManualClock()
/// let bus = try EventBus(functions: functions, clock: clock)
/// bus.publish(event)
/// await bus.waitUntilIdle()   // first attempt failed, retry scheduled in 10 s
/// clock.advance(by: .seconds(10))
/// await bus.waitUntilIdle()   // retry ran
/// ```
public final class ManualClock: BusClock {
    private struct Sleeper {
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    /// Creates a clock showing `now` (by default 2023-11-14T22:13:20Z).
    public init(now: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Mutex(State(now: now))
    }

    public var now: Date { state.withLock { $0.now } }

    /// How many tasks are sleeping on the clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        advance(to: now.addingTimeInterval(duration.seconds))
    }

    /// Moves the clock to `date` (never backwards) and wakes the sleepers due by then.
    public func advance(to date: Date) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = max(state.now, date)
            let ready = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in ready.keys { state.sleepers[id] = nil }
            return ready.sorted { $0.value.deadline < $1.value.deadline }.map(\.value.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { state -> UInt64 in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
