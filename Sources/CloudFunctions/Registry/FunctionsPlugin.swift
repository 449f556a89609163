/// Something that registers functions: a reusable set of handlers such as `PushConfig`.
///
/// Plugins use only the public authoring API, so any package can ship one.
public protocol FunctionsPlugin: Sendable {
    /// Adds the plugin's functions to the registry.
    func register(_ functions: inout FunctionRegistry)
}
