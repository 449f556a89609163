import CloudEvents

/// The span the current request or delivery runs in. The store reads it when a write is asked,
/// so that the events the write emits carry it as their `traceparent`
/// (``StoreTransaction/emit(_:)``) and their deliveries join the trace of the write.
public enum TraceScope {
    /// The span of the running task; `nil` outside any.
    @TaskLocal public static var current: TraceParent?
}
