/// Reads a config key with a fallback for when the client has neither a remote value nor a
/// default, as the SDK's `@RemoteConfigProperty` does:
///
/// ```swift
/// struct Settings {
///     @RemoteConfigProperty(key: "welcome", fallback: "Hello", client: client) var welcome: String
/// }
/// ```
@propertyWrapper
public struct RemoteConfigProperty<Value: Decodable & Sendable>: Sendable {
    /// The key.
    public let key: String
    /// What the property reads when there is no value or it does not decode.
    public let fallback: Value
    let client: RemoteConfigClient

    /// Creates the property.
    public init(key: String, fallback: Value, client: RemoteConfigClient) {
        self.key = key
        self.fallback = fallback
        self.client = client
    }

    /// The value: text for `String`, the SDKs' Bool and number rules, JSON for anything else.
    public var wrappedValue: Value {
        let value = client.configValue(forKey: key)
        guard value.source != .static else { return fallback }
        switch Value.self {
        case is String.Type: return value.stringValue as? Value ?? fallback
        case is Bool.Type: return value.boolValue as? Value ?? fallback
        case is Double.Type: return (Double(value.stringValue) as? Value) ?? fallback
        case is Int.Type: return (Int(value.stringValue) as? Value) ?? fallback
        default: return (try? value.decoded(asType: Value.self)) ?? fallback
        }
    }
}
