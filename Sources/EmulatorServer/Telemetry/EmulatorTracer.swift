import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Synchronization

/// Makes the emulator's own spans (the requests it serves, each delivery attempt) and keeps
/// them in a ``TraceStore``. A span's code runs with it as ``TraceScope/current``, so the
/// events a write emits carry it.
public struct EmulatorTracer: Sendable {
    public let store: TraceStore

    public init(store: TraceStore) {
        self.store = store
    }

    /// Runs `body` in a new span: a child of `parent`, or the first of a new trace. A thrown
    /// error marks the span failed, and is thrown on.
    public func withSpan<T>(
        _ name: String,
        kind: RecordedSpan.Kind,
        parent: TraceParent?,
        attributes: [String: JSONValue] = [:],
        _ body: (SpanHandle) async throws -> T
    ) async rethrows -> T {
        let handle = SpanHandle(context: parent?.child() ?? TraceParent.newTrace(), attributes: attributes)
        let start = Date()
        do {
            let value = try await TraceScope.$current.withValue(handle.context) { try await body(handle) }
            finish(handle, name: name, kind: kind, parent: parent, start: start, error: nil)
            return value
        } catch {
            finish(handle, name: name, kind: kind, parent: parent, start: start, error: "\(error)")
            throw error
        }
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

/// A span while it runs: its context, and the attributes and failure its code sets.
public final class SpanHandle: Sendable {
    /// The span's own trace context, which its children name as their parent.
    public let context: TraceParent
    private let state: Mutex<(attributes: [String: JSONValue], error: String?)>

    init(context: TraceParent, attributes: [String: JSONValue]) {
        self.context = context
        state = Mutex((attributes, nil))
    }

    /// Sets an attribute.
    public subscript(attribute key: String) -> JSONValue? {
        get { state.withLock { $0.attributes[key] } }
        set { state.withLock { $0.attributes[key] = newValue } }
    }

    /// Marks the span failed.
    public func fail(_ message: String) {
        state.withLock { $0.error = message }
    }

    var finished: ([String: JSONValue], String?) { state.withLock { ($0.attributes, $0.error) } }
}
