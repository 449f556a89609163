import CloudEvents

/// Remote Config triggers.
public enum RemoteConfig {
    /// A function that runs each time a Remote Config template version is published or
    /// rolled back (`google.firebase.remoteconfig.remoteConfig.v1.updated`).
    ///
    /// Options are given with ``CloudFunction/options(_:)``, as for every trigger.
    ///
    /// - Parameter handler: receives the new version and the context.
    public static func onUpdate(
        handler: @escaping @Sendable (TemplateVersion, EventContext) async throws -> Void
    ) -> CloudFunction {
        CloudFunction(
            trigger: EventTrigger(eventType: FirebaseEventType.remoteConfigUpdated),
            options: FunctionOptions(),
            problems: [],
            handler: { event, context in
                let version = try event.data.flatMap(TemplateVersion.init(eventData:))
                    ?? EventPayloadError.decode(TemplateVersion.self, from: event)
                try await handler(version, context)
            }
        )
    }
}
