import CloudEvents

/// Firebase Analytics triggers.
public enum Analytics {
    /// Triggers on one event name; finish with ``AnalyticsEventTrigger/onLog(_:)``.
    ///
    /// - Parameter name: the event name, e.g. `purchase` (matched exactly, case-sensitive).
    public static func event(_ name: String) -> AnalyticsEventTrigger {
        AnalyticsEventTrigger(name: name, functionOptions: FunctionOptions())
    }
}

/// Triggers on an Analytics event being logged.
public struct AnalyticsEventTrigger: Sendable {
    let name: String
    var functionOptions: FunctionOptions

    /// The same trigger with delivery options changed.
    public func options(_ changes: FunctionOption...) -> AnalyticsEventTrigger {
        AnalyticsEventTrigger(name: name, functionOptions: functionOptions.with(changes))
    }

    /// Runs each time the event is logged (`google.firebase.analytics.log.v1.written` with subject
    /// `events/<name>`).
    public func onLog(
        _ handler: @escaping @Sendable (AnalyticsLogEvent, EventContext) async throws -> Void
    ) -> CloudFunction {
        CloudFunction(
            trigger: EventTrigger(eventType: FirebaseEventType.analyticsLogged, filters: ["subject": "events/\(name)"]),
            options: functionOptions,
            problems: name.isEmpty ? ["an Analytics trigger needs an event name"] : [],
            handler: { event, context in
                try await handler(try EventPayloadError.decode(AnalyticsLogEvent.self, from: event), context)
            }
        )
    }
}
