import Logging

/// swift-log's `StreamLogHandler` (the same lines, on standard error), with its metadata
/// rendered when a line is written rather than each time the metadata changes.
///
/// Servers set metadata on every request (Hummingbird gives each request's logger its
/// `hb.request.id`; the worker adds each event's function and id), and `StreamLogHandler`
/// renders the whole of it into text at each change: work paid per request for lines that are
/// mostly never written. This handler keeps the metadata and hands it to the stream handler with
/// each line it writes.
public struct LazyStreamLogHandler: LogHandler {
    private var stream: StreamLogHandler

    /// The logger's metadata.
    public var metadata: Logger.Metadata = [:]

    public var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider?

    /// A handler writing to standard error, as swift-log's default handler does.
    public static func standardError(label: String) -> LazyStreamLogHandler {
        LazyStreamLogHandler(stream: .standardError(label: label, metadataProvider: nil),
            metadataProvider: LoggingSystem.metadataProvider)
    }

    /// A handler writing through `stream`, which should have no metadata or metadata provider
    /// of its own.
    public init(stream: StreamLogHandler, metadataProvider: Logger.MetadataProvider? = nil) {
        self.stream = stream
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // What StreamLogHandler merges: the logger's metadata, then the provider's, then the line's.
        var event = event
        let merged = mergedMetadata(with: event.metadata)
        if !merged.isEmpty { event.metadata = merged }
        stream.log(event: event)
    }
}
