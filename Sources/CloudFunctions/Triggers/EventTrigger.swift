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
    public func match(_ event: CloudEvent) -> [String: String]? {
        guard event.type == eventType else { return nil }
        for (attribute, value) in filters where event[attribute: attribute] != value {
            return nil
        }
        if pathPatterns.isEmpty { return [:] }
        var params: [String: String] = [:]
        for (attribute, pattern) in pathPatterns {
            guard let value = event[attribute: attribute], let captures = pattern.match(value) else { return nil }
            params.merge(captures) { first, _ in first }
        }
        return params
    }
}
