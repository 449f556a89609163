import CloudEvents

/// Firebase Authentication triggers.
public enum Auth {
    /// User lifecycle triggers; finish with ``AuthUserTrigger/onCreate(_:)`` or ``AuthUserTrigger/onDelete(_:)``.
    public static func user() -> AuthUserTrigger {
        AuthUserTrigger(functionOptions: FunctionOptions())
    }
}

/// Triggers on users being created or deleted.
public struct AuthUserTrigger: Sendable {
    var functionOptions: FunctionOptions

    /// The same trigger with delivery options changed.
    public func options(_ changes: FunctionOption...) -> AuthUserTrigger {
        AuthUserTrigger(functionOptions: functionOptions.with(changes))
    }

    /// Runs when a user is created (sign-up, admin create, or import).
    public func onCreate(
        _ handler: @escaping @Sendable (UserRecord, EventContext) async throws -> Void
    ) -> CloudFunction {
        function(FirebaseEventType.authUserCreated, handler)
    }

    /// Runs when a user is deleted.
    public func onDelete(
        _ handler: @escaping @Sendable (UserRecord, EventContext) async throws -> Void
    ) -> CloudFunction {
        function(FirebaseEventType.authUserDeleted, handler)
    }

    private func function(
        _ eventType: String,
        _ handler: @escaping @Sendable (UserRecord, EventContext) async throws -> Void
    ) -> CloudFunction {
        CloudFunction(
            trigger: EventTrigger(eventType: eventType),
            options: functionOptions,
            problems: [],
            handler: { event, context in
                try await handler(try EventPayloadError.decode(UserRecord.self, from: event), context)
            }
        )
    }
}
