import CloudEvents

/// What events a function receives: a CloudEvent type, exact attribute filters, and
/// attribute path patterns (Eventarc's `eventFilters` and `eventFilterPathPatterns`).
public struct EventTrigger: Sendable, Hashable {
    /// The CloudEvent `type` to receive.
    public var eventType: String
    /// Attributes that must equal these values.
    public var filters: [String: String]
    /// Attributes that must match these patterns; their captures become `context.params`.
    public var pathPatterns: [String: PathPattern]

    /// Creates a trigger.
    public init(eventType: String, filters: [String: String] = [:], pathPatterns: [String: PathPattern] = [:]) {
        self.eventType = eventType
        self.filters = filters
        self.pathPatterns = pathPatterns
    }

    /// The captured parameters when the event matches this trigger, `nil` otherwise.
    ///
    /// Runs for every delivery, so it builds no explanation of a mismatch (``mismatch(_:)`` does).
    public func match(_ event: CloudEvent) -> [String: String]? {
        guard event.type == eventType else { return nil }
        for (attribute, expected) in filters where event.filterValue(attribute) != expected { return nil }
        var params: [String: String]?
        for (attribute, pattern) in pathPatterns {
            guard let value = event[attribute: attribute], let captures = pattern.match(value) else { return nil }
            // The first pattern's captures are taken as they are: no merge for the usual one pattern.
            if params == nil { params = captures } else { params?.merge(captures) { first, _ in first } }
        }
        return params ?? [:]
    }

    /// Whether the event matches this trigger, without computing the captured parameters.
    public func matches(_ event: CloudEvent) -> Bool {
        firstMismatch(event) == nil
    }

    /// Why the event does not match this trigger, in words; `nil` when it matches.
    public func mismatch(_ event: CloudEvent) -> String? {
        firstMismatch(event)?.description
    }

    /// The first thing that keeps an event from matching.
    private enum Mismatch: CustomStringConvertible {
        case type(String)
        case filter(attribute: String, value: String?, expected: String)
        case pattern(attribute: String, value: String?, pattern: PathPattern)

        var description: String {
            switch self {
            case .type(let type): "the event's type '\(type)' is not the trigger's"
            case .filter(let attribute, let value, let expected):
                "the event's \(attribute) '\(value ?? "")' is not '\(expected)'"
            case .pattern(let attribute, let value, let pattern):
                "the event's \(attribute) '\(value ?? "")' does not match '\(pattern)'"
            }
        }
    }

    private func firstMismatch(_ event: CloudEvent) -> Mismatch? {
        guard event.type == eventType else { return .type(event.type) }
        for (attribute, expected) in filters {
            let value = event.filterValue(attribute)
            if value != expected { return .filter(attribute: attribute, value: value, expected: expected) }
        }
        for (attribute, pattern) in pathPatterns {
            let value = event[attribute: attribute]
            guard let value, pattern.matches(value) else { return .pattern(attribute: attribute, value: value, pattern: pattern) }
        }
        return nil
    }
}

extension CloudEvent {
    /// The value an Eventarc filter on `attribute` compares: the attribute, and for a Pub/Sub
    /// event's `topic` (which Eventarc filters on, but no attribute carries) the topic its
    /// source names.
    package func filterValue(_ attribute: String) -> String? {
        if let value = self[attribute: attribute] { return value }
        guard attribute == "topic", type == FirebaseEventType.pubSubPublished, source.hasPrefix("//pubsub.googleapis.com/"),
            let slash = source.lastIndex(of: "/"), source[..<slash].hasSuffix("/topics")
        else { return nil }
        return String(source[source.index(after: slash)...])
    }
}
