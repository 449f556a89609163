import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Synchronization

/// Makes the emulator's own spans (the requests it serves, each delivery attempt) and keeps
/// them in a ``TraceStore``. A span's code runs with it as ``TraceScope/current``, so the
/// events a write emits carry it.
///
/// Traces are sampled at their start, as OpenTelemetry's parent-based samplers do: a trace the
/// caller started keeps the caller's decision (the `sampled` flag of its `traceparent`); one the
/// emulator starts is recorded while fewer than ``tracesPerSecond`` have started in the last
/// second (a token bucket), so that under load the traces cost little and at a developer's pace
/// every one is recorded. An unsampled trace's context still travels, with the flag unset, so
/// workers make no spans for it either.
public struct EmulatorTracer: Sendable {
    public let store: TraceStore
    /// The most traces the emulator starts recording per second (a burst of as many is allowed).
    public let tracesPerSecond: Double
    private let bucket: TokenBucket

    public init(store: TraceStore, tracesPerSecond: Double = 100) {
        self.store = store
        self.tracesPerSecond = tracesPerSecond
        bucket = TokenBucket(perSecond: tracesPerSecond)
    }

    /// The context of a new trace, sampled while the rate allows.
    func newTrace() -> TraceParent {
        TraceParent.newTrace(sampled: bucket.take())
    }

    /// Runs `body` in a new span: a child of `parent`, or the first of a new trace. A sampled
    /// span is recorded when `body` ends; a thrown error marks it failed, and is thrown on.
    /// `name` and `attributes` are read only for a sampled span.
    public func withSpan<T>(
        _ name: @autoclosure () -> String,
        kind: RecordedSpan.Kind,
        parent: TraceParent?,
        attributes: @autoclosure () -> [String: JSONValue] = [:],
        _ body: (SpanHandle) async throws -> T
    ) async rethrows -> T {
        let context = parent?.child() ?? newTrace()
        guard context.sampled else {
            return try await TraceScope.$current.withValue(context) { try await body(SpanHandle(context: context)) }
        }
        let handle = SpanHandle(context: context, attributes: attributes())
        let start = Date()
        do {
            let value = try await TraceScope.$current.withValue(context) { try await body(handle) }
            finish(handle, name: name(), kind: kind, parent: parent, start: start, error: nil)
            return value
        } catch {
            finish(handle, name: name(), kind: kind, parent: parent, start: start, error: "\(error)")
            throw error
        }
    }

    /// The context an event's deliveries continue: its `traceparent`, or for an event committed
    /// outside any request (Firestore and Pub/Sub events, schedules' firings), a trace named after
    /// the event itself, the same for every attempt, whose first span stands for the event's
    /// creation (recorded once, when sampled).
    func parent(of event: CloudEvent) -> TraceParent {
        if let parent = event.traceParent { return parent }
        var ids = IdentityHash(event.source + "\n" + event.id)
        let traceID = ids.hex() + ids.hex()
        let creation = TraceParent(traceID: traceID, spanID: ids.hex(), sampled: store.contains(traceID) || bucket.take())
        guard creation.sampled else { return creation }
        let time = RecordedSpan.nanoseconds(event.time ?? Date())
        store.addIfNew(RecordedSpan(
            traceId: creation.traceID, spanId: creation.spanID, parentSpanId: nil, name: "event \(event.type)",
            kind: .producer, service: "emulator", startTimeUnixNano: time, endTimeUnixNano: time,
            attributes: ["cloudevents.event_id": .string(event.id), "cloudevents.event_source": .string(event.source)]))
        return creation
    }

    private func finish(_ handle: SpanHandle, name: String, kind: RecordedSpan.Kind, parent: TraceParent?, start: Date,
        error thrown: String?)
    {
        let (attributes, error) = handle.finished
        store.add([RecordedSpan(
            traceId: handle.context.traceID, spanId: handle.context.spanID, parentSpanId: parent?.spanID, name: name,
            kind: kind, service: "emulator", startTimeUnixNano: RecordedSpan.nanoseconds(start),
            endTimeUnixNano: RecordedSpan.nanoseconds(Date()), attributes: attributes, error: error ?? thrown)])
    }
}

/// A span while it runs: its context, and the attributes and failure its code sets (kept only
/// when it is recorded).
public final class SpanHandle: Sendable {
    /// The span's own trace context, which its children name as their parent.
    public let context: TraceParent
    private let state: Mutex<(attributes: [String: JSONValue], error: String?)>?

    /// A recorded span's handle.
    init(context: TraceParent, attributes: [String: JSONValue]) {
        self.context = context
        state = Mutex((attributes, nil))
    }

    /// An unsampled span's handle, which keeps nothing.
    init(context: TraceParent) {
        self.context = context
        state = nil
    }

    /// Sets an attribute.
    public subscript(attribute key: String) -> JSONValue? {
        get { state?.withLock { $0.attributes[key] } }
        set { state?.withLock { $0.attributes[key] = newValue } }
    }

    /// Marks the span failed.
    public func fail(_ message: String) {
        state?.withLock { $0.error = message }
    }

    var finished: ([String: JSONValue], String?) { state?.withLock { ($0.attributes, $0.error) } ?? ([:], nil) }
}

/// Allows `perSecond` takes a second, in bursts of as many.
final class TokenBucket: Sendable {
    private let perSecond: Double
    private let state: Mutex<(tokens: Double, last: ContinuousClock.Instant)>

    init(perSecond: Double) {
        self.perSecond = max(0, perSecond)
        state = Mutex((max(0, perSecond), .now))
    }

    /// Takes a token if there is one.
    func take() -> Bool {
        guard perSecond > 0 else { return false }
        return state.withLock { state in
            let now = ContinuousClock.now
            let elapsed = now - state.last
            state.last = now
            state.tokens = min(perSecond, state.tokens + perSecond * elapsed.seconds)
            guard state.tokens >= 1 else { return false }
            state.tokens -= 1
            return true
        }
    }
}

/// 64-bit FNV-1a hashes of a text, one after another (each seeded with the one before): ids
/// derived from an event's identity, the same on every attempt and after a restart.
struct IdentityHash {
    private var seed = FNV1aHasher().state
    private let bytes: [UInt8]

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// The next hash, as 16 hexadecimal digits (never all zeros).
    mutating func hex() -> String {
        var hasher = FNV1aHasher(state: seed)
        for byte in bytes { hasher.combine(byte: byte) }
        var hash = hasher.state
        seed = hash ^ 0x9e37_79b9_7f4a_7c15
        if hash == 0 { hash = 1 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
