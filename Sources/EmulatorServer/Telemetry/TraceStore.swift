import CloudEvents
import Foundation
import Synchronization

/// The spans of the most recent traces, in memory: the emulator's own and those its workers
/// export to it. The console's trace view reads them; with an OTLP endpoint they are also
/// queued for the ``OTLPExporter``.
///
/// It keeps at most ``traceLimit`` traces (the oldest started go first) and ``spanLimit`` spans
/// per trace; the export queue holds at most ``queueLimit`` spans (the oldest go first when the
/// endpoint cannot keep up).
public final class TraceStore: Sendable {
    public let traceLimit: Int
    public let spanLimit: Int
    public let queueLimit: Int
    /// Whether spans are queued for export.
    let exports: Bool

    private struct State {
        var traces: [String: [RecordedSpan]] = [:]
        /// Trace ids in the order their first span came.
        var order: [String] = []
        var orderStart = 0
        var queue: [RecordedSpan] = []
        var dropped = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init(traceLimit: Int = 2_000, spanLimit: Int = 1_000, queueLimit: Int = 20_000, exports: Bool = false) {
        self.traceLimit = traceLimit
        self.spanLimit = spanLimit
        self.queueLimit = queueLimit
        self.exports = exports
    }

    /// Keeps spans (and queues them for export).
    public func add(_ spans: [RecordedSpan]) {
        guard !spans.isEmpty else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            for span in spans {
                if state.traces[span.traceId] == nil {
                    state.order.append(span.traceId)
                    if state.order.count - state.orderStart > traceLimit {
                        state.traces[state.order[state.orderStart]] = nil
                        state.orderStart += 1
                        if state.orderStart > traceLimit {
                            state.order.removeFirst(state.orderStart)
                            state.orderStart = 0
                        }
                    }
                }
                if state.traces[span.traceId, default: []].count < spanLimit {
                    state.traces[span.traceId, default: []].append(span)
                }
            }
            guard exports else { return nil }
            state.queue.append(contentsOf: spans)
            if state.queue.count > queueLimit {
                state.dropped += state.queue.count - queueLimit
                state.queue.removeFirst(state.queue.count - queueLimit)
            }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The spans of a trace, by start time.
    public func trace(_ traceId: String) -> [RecordedSpan] {
        state.withLock { $0.traces[traceId] ?? [] }.sorted { ($0.startTimeUnixNano, $0.spanId) < ($1.startTimeUnixNano, $1.spanId) }
    }

    /// The ids of the traces kept, the newest first.
    public func recentTraceIds(limit: Int) -> [String] {
        state.withLock { state in Array(state.order[state.orderStart...].reversed().prefix(limit)) }
    }

    /// Waits until spans are queued, then takes up to `limit` of them and the number dropped
    /// since the last take; returns at once when cancelled.
    func takeQueued(limit: Int) async -> (spans: [RecordedSpan], dropped: Int) {
        while !Task.isCancelled {
            let taken = state.withLock { state -> ([RecordedSpan], Int)? in
                guard !state.queue.isEmpty else { return nil }
                let spans = Array(state.queue.prefix(limit))
                state.queue.removeFirst(spans.count)
                defer { state.dropped = 0 }
                return (spans, state.dropped)
            }
            if let taken { return taken }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        guard state.queue.isEmpty, state.waiter == nil else { return true }
                        state.waiter = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                state.withLock { state in
                    defer { state.waiter = nil }
                    return state.waiter
                }?.resume()
            }
        }
        return ([], 0)
    }
}
