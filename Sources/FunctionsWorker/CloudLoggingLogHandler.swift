import CloudEvents
import CloudFunctions
import Foundation
import Logging
import ProcessSupport
import Synchronization

/// A swift-log handler writing Cloud Logging's structured JSON: one object per line, which
/// Cloud Run (and most log collectors on Knative) turn into a structured entry.
///
/// Each line has `severity`, `message`, `time` (RFC 3339), `logger`, the logger's metadata as
/// fields of its own (the worker adds `function`, `event.id` and `event.type` to a handler's
/// logger), `logging.googleapis.com/labels` with the function name, and
/// `logging.googleapis.com/sourceLocation`. A `traceparent` metadata value (W3C Trace Context,
/// as the worker takes it from the event or its request) becomes
/// `logging.googleapis.com/trace` (`projects/P/traces/TRACE_ID`, when the project is known),
/// `logging.googleapis.com/spanId` and `logging.googleapis.com/trace_sampled`.
public struct CloudLoggingLogHandler: LogHandler {
    /// Where lines go; each call gets one complete line, newline included.
    public typealias Sink = @Sendable (String) -> Void

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public var metadataProvider: Logger.MetadataProvider?

    private let label: String
    private let project: String?
    private let sink: Sink

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - label: the logger's label, written as `logger`.
    ///   - project: the Google Cloud project traces belong to; without it no trace field is written.
    ///   - sink: receives each line; by default standard output.
    public init(label: String, project: String?, sink: @escaping Sink = CloudLoggingLogHandler.standardOutput) {
        self.label = label
        self.project = project
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: JSONValue] = [:]
        var merged = mergedMetadata(with: event.metadata)
        if case .string(let traceparent)? = merged.removeValue(forKey: "traceparent"),
            let trace = TraceParent(traceparent)
        {
            if let project { fields["logging.googleapis.com/trace"] = .string("projects/\(project)/traces/\(trace.traceID)") }
            fields["logging.googleapis.com/spanId"] = .string(trace.spanID)
            fields["logging.googleapis.com/trace_sampled"] = .bool(trace.sampled)
        }
        for (key, value) in merged { fields[key] = Self.json(value) }
        if case .string(let function)? = merged["function"] {
            fields["logging.googleapis.com/labels"] = .object(["function": .string(function)])
        }
        fields["severity"] = .string(LogSeverity(event.level).rawValue)
        fields["message"] = .string(event.message.description)
        fields["time"] = .string(RFC3339Timestamp.string(from: Date()))
        fields["logger"] = .string(label)
        fields["logging.googleapis.com/sourceLocation"] = .object([
            "file": .string(event.file), "line": .string(String(event.line)), "function": .string(event.function),
        ])
        sink(JSONValue.object(fields).serialized() + "\n")
    }

    private static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(json))
        case .dictionary(let values): .object(values.mapValues(json))
        }
    }

    private static let output = Mutex(())

    /// Writes a line to standard output, one line at a time. A line that cannot be written (no
    /// one reads the output any more) is dropped: logging never stops the worker.
    public static let standardOutput: Sink = { line in
        output.withLock { _ in try? FileHandle.standardOutput.write(contentsOf: Data(line.utf8)) }
    }
}
