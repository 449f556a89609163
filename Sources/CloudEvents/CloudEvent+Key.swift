extension CloudEvent {
    /// What identifies an event: its `source` and `id` together. Producers keep both when they
    /// send an event again, so consumers drop duplicates by this key.
    public struct Key: Sendable, Hashable, CustomStringConvertible {
        /// The event's `source`.
        public var source: String
        /// The event's `id`.
        public var id: String

        /// Creates a key.
        public init(source: String, id: String) {
            self.source = source
            self.id = id
        }

        public var description: String { "\(source) \(id)" }
    }

    /// The event's key: `source` and `id`.
    public var key: Key { Key(source: source, id: id) }
}
