/// Where a config value came from, as the SDKs report it.
public enum RemoteConfigSource: String, Sendable, Hashable, Codable {
    /// No default and no remote value: the empty static value.
    case `static`
    /// An in-app default set with `setDefaults`.
    case `default`
    /// The activated remote config.
    case remote
}
