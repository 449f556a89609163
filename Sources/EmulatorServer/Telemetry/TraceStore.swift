import CloudEvents
import Foundation
import Synchronization

/// The spans of the most recent traces, in memory: the emulator's own and those its workers
/// export to it. The console's trace view reads them; with an OTLP endpoint they are also
/// queued for the ``OTLPExporter``.
///
/// It keeps at most ``traceLimit`` traces and about ``byteLimit`` bytes of spans (the oldest
/// traces started go first), and ``spanLimit`` spans per trace; the export queue holds at most
/// ``queueLimit`` spans (the oldest go first when the endpoint cannot keep up).
public final class TraceStore: Sendable {
    public let traceLimit: Int
    public let spanLimit: Int
    public let queueLimit: Int
    /// About how many bytes of spans are kept.
    public let byteLimit: Int
    /// Whether spans are queued for export.
    let exports: Bool

    private struct State {
        var traces: [String: [RecordedSpan]] = [:]
        /// About how many bytes each trace's spans take, and all of them.
        var sizes: [String: Int] = [:]
        var bytes = 0
        /// Trace ids in the order their first span came.
        var order: [String] = []
        var orderStart = 0
        var queue: [RecordedSpan] = []
        var dropped = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init(
        traceLimit: Int = 2_000, spanLimit: Int = 1_000, byteLimit: Int = 64 * 1024 * 1024, queueLimit: Int = 20_000,
        exports: Bool = false
    ) {
        self.traceLimit = traceLimit
        self.byteLimit = byteLimit
        self.spanLimit = spanLimit
        self.queueLimit = queueLimit
        self.exports = exports
    }

    /// Keeps spans (and queues them for export).
    public func add(_ spans: [RecordedSpan]) {
        guard !spans.isEmpty else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            for span in spans {
                if state.traces[span.traceId] == nil { state.order.append(span.traceId) }
                if state.traces[span.traceId, default: []].count < spanLimit {
                    state.traces[span.traceId, default: []].append(span)
                    let size = span.approximateSize
                    state.sizes[span.traceId, default: 0] += size
                    state.bytes += size
                }
                // The oldest traces go, but never the one just added to.
                while state.order.count - state.orderStart > traceLimit
                    || (state.bytes > byteLimit && state.order[state.orderStart] != span.traceId)
                {
                    let oldest = state.order[state.orderStart]
                    state.traces[oldest] = nil
                    state.bytes -= state.sizes.removeValue(forKey: oldest) ?? 0
                    state.orderStart += 1
                }
                if state.orderStart > traceLimit {
                    state.order.removeFirst(state.orderStart)
                    state.orderStart = 0
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

    /// Whether spans of a trace are kept.
    func contains(_ traceId: String) -> Bool {
        state.withLock { $0.traces[traceId] != nil }
    }

    /// Keeps a span unless its trace has one of the same id.
    func addIfNew(_ span: RecordedSpan) {
        let known = state.withLock { $0.traces[span.traceId]?.contains { $0.spanId == span.spanId } ?? false }
        if !known { add([span]) }
    }

    /// The spans of a trace, by start time.
    public func trace(_ traceId: String) -> [RecordedSpan] {
        state.withLock { $0.traces[traceId] ?? [] }.sorted { ($0.startTimeUnixNano, $0.spanId) < ($1.startTimeUnixNano, $1.spanId) }
    }

    /// The ids of the traces kept, the newest first.
    public func recentTraceIds(limit: Int) -> [String] {
        state.withLock { state in Array(state.order[state.orderStart...].reversed().prefix(limit)) }
    }

    /// Takes up to `limit` queued spans at once, and the number dropped since the last take;
    /// `nil` when none is queued.
    func takeQueuedNow(limit: Int) -> (spans: [RecordedSpan], dropped: Int)? {
        state.withLock { state in
            guard !state.queue.isEmpty else { return nil }
            let spans = Array(state.queue.prefix(limit))
            state.queue.removeFirst(spans.count)
            defer { state.dropped = 0 }
            return (spans, state.dropped)
        }
    }

    /// Waits until spans are queued, then takes up to `limit` of them and the number dropped
    /// since the last take; returns at once when cancelled.
    func takeQueued(limit: Int) async -> (spans: [RecordedSpan], dropped: Int) {
        while !Task.isCancelled {
            if let taken = takeQueuedNow(limit: limit) { return taken }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        // Cancelled before the handler was installed: it found no waiter to resume.
                        guard state.queue.isEmpty, state.waiter == nil, !Task.isCancelled else { return true }
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
