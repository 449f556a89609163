import CloudEvents

/// Triggers on any CloudEvent type, for events this package has no typed trigger for.
public enum Eventarc {
    /// A function that receives every event of `type` whose attributes equal `filters` and
    /// match `pathPatterns` (e.g. `["ref": "users/{uid}"]`).
    public static func onEvent(
        type: String,
        filters: [String: String] = [:],
        pathPatterns: [String: String] = [:],
        handler: @escaping @Sendable (CloudEvent, EventContext) async throws -> Void
    ) -> CloudFunction {
        var problems: [String] = []
        var patterns: [String: PathPattern] = [:]
        for (attribute, text) in pathPatterns {
            do {
                patterns[attribute] = try PathPattern(text)
            } catch {
                problems.append(error.description)
            }
        }
        return CloudFunction(
            trigger: EventTrigger(eventType: type, filters: filters, pathPatterns: patterns),
            options: FunctionOptions(),
            problems: problems,
            handler: handler
        )
    }
}
