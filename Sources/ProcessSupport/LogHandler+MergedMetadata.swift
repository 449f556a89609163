import Logging

extension LogHandler {
    /// The metadata a line is written with, as swift-log's handlers merge it: the logger's, then
    /// its metadata provider's, then the line's own, each overriding the keys before it.
    package func mergedMetadata(with line: Logger.Metadata?) -> Logger.Metadata {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty { merged.merge(provided) { _, new in new } }
        if let line, !line.isEmpty { merged.merge(line) { _, new in new } }
        return merged
    }
}
