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
        if case .success(let params) = evaluate(event) { return params }
        return nil
    }

    /// Whether the event matches this trigger, without computing the captured parameters.
    public func matches(_ event: CloudEvent) -> Bool {
        guard event.type == eventType else { return false }
        for (attribute, expected) in filters where event[attribute: attribute] != expected { return false }
        for (attribute, pattern) in pathPatterns {
            guard let value = event[attribute: attribute], pattern.matches(value) else { return false }
        }
        return true
    }

    /// Why the event does not match this trigger, in words; `nil` when it matches.
    public func mismatch(_ event: CloudEvent) -> String? {
        if case .failure(let mismatch) = evaluate(event) { return mismatch.description }
        return nil
    }

    /// The first thing that keeps an event from matching.
    private enum Mismatch: Error, CustomStringConvertible {
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

    private func evaluate(_ event: CloudEvent) -> Result<[String: String], Mismatch> {
        guard event.type == eventType else { return .failure(.type(event.type)) }
        for (attribute, expected) in filters {
            let value = event[attribute: attribute]
            if value != expected { return .failure(.filter(attribute: attribute, value: value, expected: expected)) }
        }
        if pathPatterns.isEmpty { return .success([:]) }
        var params: [String: String] = [:]
        for (attribute, pattern) in pathPatterns {
            let value = event[attribute: attribute]
            guard let value, let captures = pattern.match(value) else {
                return .failure(.pattern(attribute: attribute, value: value, pattern: pattern))
            }
            // The first pattern's captures are taken as they are: no merge for the usual one pattern.
            if params.isEmpty { params = captures } else { params.merge(captures) { first, _ in first } }
        }
        return .success(params)
    }
}
