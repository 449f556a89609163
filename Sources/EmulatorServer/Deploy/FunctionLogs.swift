import CloudEvents
import CloudFunctions
import Foundation
import ProcessSupport
import Synchronization

/// The recent log lines of the deployed functions' workers, kept in memory (the newest
/// ``capacity``) for the console's Functions page and `functions logs`, and followed live.
///
/// A worker's structured lines (Cloud Logging's JSON, which workers built with this package
/// write) keep their severity, time, message and metadata; any other line is a message of its
/// own, with severity `DEFAULT` on standard output and `ERROR` on standard error, as Cloud Run
/// reads them.
public final class FunctionLogs: Sendable {
    /// One log line.
    public struct Entry: Sendable, Equatable {
        /// Increases by one with each line the emulator received.
        public let sequence: Int
        /// When it was written (RFC 3339).
        public let time: String
        /// Cloud Logging's severity: `DEFAULT`, `DEBUG`, `INFO`, … `EMERGENCY`.
        public let severity: String
        /// The function whose worker wrote it.
        public let function: String
        public let message: String
        /// The event being handled, when the line says.
        public let eventID: String?
        /// The line's other metadata (the author's, the attempt number of a retry).
        public let labels: [String: JSONValue]
        /// The trace and span the line was written in (Cloud Logging's
        /// `logging.googleapis.com/trace` and `spanId`), when the worker says.
        public let traceID: String?
        public let spanID: String?
        /// The severity's place in ``FunctionLogs/severities``.
        let rank: Int

        /// The entry as the emulator's REST routes show it.
        public var json: JSONValue {
            var object: [String: JSONValue] = [
                "sequence": .number(Double(sequence)), "time": .string(time), "severity": .string(severity),
                "function": .string(function), "message": .string(message),
            ]
            if let eventID { object["eventId"] = .string(eventID) }
            if !labels.isEmpty { object["labels"] = .object(labels) }
            if let traceID { object["traceId"] = .string(traceID) }
            if let spanID { object["spanId"] = .string(spanID) }
            return .object(object)
        }
    }

    /// Cloud Logging's severities, lowest first.
    public static let severities = LogSeverity.allCases.map(\.rawValue)

    /// How many lines are kept.
    public let capacity: Int

    private struct State {
        /// A ring: once full, the newest entry takes the place of the oldest, at `oldest`.
        var entries: [Entry] = []
        var oldest = 0
        var nextSequence = 1
        var followers: [UUID: AsyncStream<Entry>.Continuation] = [:]
    }

    private let state = Mutex(State())

    /// Creates an empty record keeping the newest `capacity` lines.
    public init(capacity: Int = 5000) {
        self.capacity = max(capacity, 1)
    }

    /// Records a line `function`'s worker wrote on `stream`, and hands it to the followers.
    @discardableResult
    public func append(_ line: String, function: String, stream: WorkerSupervisor.Stream) -> Entry {
        var severity: LogSeverity = stream == .error ? .error : .default
        var time: String?
        var message = line
        var eventID: String?
        var labels: [String: JSONValue] = [:]
        var traceID: String?
        var spanID: String?
        if line.first == "{", case .object(let fields)? = try? JSONValue(parsing: line) {
            for (key, value) in fields {
                switch key {
                case "severity": if let known = value.stringValue.flatMap(LogSeverity.init(rawValue:)) { severity = known }
                case "time": if let text = value.stringValue { time = text }
                case "message": message = value.stringValue ?? value.serialized()
                case "event.id": eventID = value.stringValue
                case "function", "logger", "event.type": break
                // `projects/P/traces/ID`.
                case "logging.googleapis.com/trace": traceID = value.stringValue?.split(separator: "/").last.map(String.init)
                case "logging.googleapis.com/spanId": spanID = value.stringValue
                default: if !key.hasPrefix("logging.googleapis.com/") { labels[key] = value }
                }
            }
        }
        return state.withLock { state in
            let entry = Entry(sequence: state.nextSequence, time: time ?? RFC3339Timestamp.string(from: Date()),
                severity: severity.rawValue, function: function, message: message, eventID: eventID, labels: labels,
                traceID: traceID, spanID: spanID, rank: severity.rank)
            state.nextSequence += 1
            if state.entries.count < capacity {
                state.entries.append(entry)
            } else {
                state.entries[state.oldest] = entry
                state.oldest = (state.oldest + 1) % capacity
            }
            // Under the lock, so that followers get lines in their order (yielding never blocks).
            for follower in state.followers.values { follower.yield(entry) }
            return entry
        }
    }

    /// The newest `limit` lines (oldest first) that match: of `function` when given, at
    /// `minimumSeverity` or above.
    public func entries(function: String? = nil, minimumSeverity: String = "DEFAULT", limit: Int = 100) -> [Entry] {
        let matches = Self.filter(function: function, minimumSeverity: minimumSeverity)
        return state.withLock { state in
            var found: [Entry] = []
            let count = state.entries.count
            for offset in 0..<count where found.count < limit {
                let entry = state.entries[(state.oldest + count - 1 - offset) % count]
                if matches(entry) { found.append(entry) }
            }
            return found.reversed()
        }
    }

    /// The kept lines written in a trace, oldest first.
    public func entries(inTrace traceID: String) -> [Entry] {
        state.withLock { state in
            let count = state.entries.count
            return (0..<count).map { state.entries[(state.oldest + $0) % count] }.filter { $0.traceID == traceID }
        }
    }

    /// The lines from now on, until the stream's consumer stops.
    public func follow() -> AsyncStream<Entry> {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: Entry.self, bufferingPolicy: .bufferingNewest(capacity))
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.followers.removeValue(forKey: id) }
        }
        state.withLock { $0.followers[id] = continuation }
        return stream
    }

    /// Whether an entry is of `function` (any when nil) and at `minimumSeverity` or above.
    public static func filter(function: String?, minimumSeverity: String) -> @Sendable (Entry) -> Bool {
        let rank = LogSeverity(rawValue: minimumSeverity)?.rank ?? 0
        return { entry in (function == nil || entry.function == function) && entry.rank >= rank }
    }
}
