import CloudFunctions
import Logging

/// The documented `pushConfig` function, as a plugin: whenever a Remote Config template is
/// published or rolled back, it sends a silent data message `{"CONFIG_STATE": "STALE"}` to a
/// topic, so that each subscribed app marks its config stale and its next fetch skips the
/// cache.
///
/// The message is a background push: APNs `content-available: 1` (with `apns-priority: 5`
/// and `apns-push-type: background`, as APNs requires for it) and high Android priority.
/// Duplicate pings (from at-least-once delivery) are harmless: a stale mark is idempotent.
///
/// ```swift
/// functions.use(PushConfig(topic: "PUSH_RC"))
/// ```
public struct PushConfig: FunctionsPlugin {
    /// The topic the apps subscribe to.
    public var topic: String
    /// The name the function is registered under.
    public var name: String
    /// Delivery options of the function.
    public var options: [FunctionOption]

    /// Creates the plugin.
    ///
    /// - Parameters:
    ///   - topic: the FCM topic the apps subscribe to; `PUSH_RC` by default.
    ///   - name: the function name; `pushConfig` by default.
    ///   - options: delivery options, e.g. `.retry(true)`.
    public init(topic: String = "PUSH_RC", name: String = "pushConfig", options: [FunctionOption] = []) {
        self.topic = topic
        self.name = name
        self.options = options
    }

    /// The message sent on every template update.
    public var message: Message {
        Message(
            .topic(topic),
            data: ["CONFIG_STATE": "STALE"],
            android: AndroidConfig(priority: .high),
            apns: .background
        )
    }

    public func register(_ functions: inout FunctionRegistry) {
        let message = message
        // It sends through Cloud Messaging and calls nothing else.
        var function = RemoteConfig.onUpdate { version, context in
            let name = try await context.messaging.send(message)
            context.logger.info(
                "config marked stale",
                metadata: ["version": "\(version.versionNumber)", "topic": "\(topic)", "message": "\(name)"]
            )
        }.options(.uses(.messaging))
        function.options = function.options.with(options)
        functions[name] = function
    }
}
