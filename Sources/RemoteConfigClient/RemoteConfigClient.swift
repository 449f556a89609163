import Foundation
import Logging
import Synchronization

/// The device side of Remote Config, as the Firebase SDKs model it, for one simulated app
/// install: in-app defaults, fetch with a minimum interval, activate, throttling after
/// failures, realtime update listeners, and the stale flag a `CONFIG_STATE` data message sets.
///
/// It talks to a Firebase-compatible backend (the emulator) over HTTP: the client fetch
/// `POST /v1/projects/{p}/namespaces/firebase:fetch` and the realtime stream
/// `:streamFetchInvalidations`. What an app keeps between launches lives in its
/// ``RemoteConfigStore``.
public final class RemoteConfigClient: Sendable {
    /// The install this client is.
    public let installation: RemoteConfigInstallation
    /// The backend's base URL, e.g. `http://127.0.0.1:4400`.
    public let backend: URL
    /// The project.
    public let project: String
    let apiKey: String
    let clock: any RemoteConfigClock
    let random: @Sendable () -> Double
    let logger: Logger
    let store: RemoteConfigStore
    let state: Mutex<RemoteConfigState>
    /// Why the last `fetchAndActivate` reported `.error`.
    let fetchError = Mutex<(any Error)?>(nil)
    let settingsValue = Mutex(RemoteConfigSettings())
    let realtime = Mutex(RealtimeState())
    /// `CONFIG_STATE` messages handled so far (read and written under the state's lock): a fetch
    /// clears the stale flag only if none came while it was on its way.
    let pings = Atomic<UInt64>(0)
    /// Fetches sent to the backend so far, and the latest of them whose answer was applied (both
    /// read and written under the state's lock): an answer to an earlier fetch comes too late.
    let fetchesSent = Atomic<UInt64>(0)
    let fetchApplied = Atomic<UInt64>(0)

    /// Creates a client; it starts from what `store` kept (defaults, configs, the stale flag).
    ///
    /// - Parameters:
    ///   - random: uniform in `0..<1`, for backoff jitter.
    public init(
        installation: RemoteConfigInstallation = RemoteConfigInstallation(),
        backend: URL,
        project: String,
        apiKey: String = "emulator-api-key",
        store: RemoteConfigStore = .inMemory(),
        clock: any RemoteConfigClock = SystemRemoteConfigClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        logger: Logger = Logger(label: "remote-config-client")
    ) {
        self.installation = installation
        self.backend = backend
        self.project = project
        self.apiKey = apiKey
        self.store = store
        self.clock = clock
        self.random = random
        self.logger = logger
        state = Mutex(store.load())
    }

    deinit {
        realtime.withLock { $0.task }?.cancel()
    }

    /// The settings: minimum fetch interval and fetch timeout.
    public var settings: RemoteConfigSettings {
        get { settingsValue.withLock { $0 } }
        set { settingsValue.withLock { $0 = newValue } }
    }

    // MARK: Defaults

    /// Sets the in-app defaults: strings, numbers, Bools, `Data` (UTF-8) and JSON-able arrays
    /// and dictionaries (kept as JSON text), as `setDefaults` takes them.
    ///
    /// - Throws: ``RemoteConfigError/invalidDefaults(_:)`` for a value of another type.
    public func setDefaults(_ defaults: [String: Any]) throws {
        var strings: [String: String] = [:]
        for (key, value) in defaults { strings[key] = try Self.defaultString(value, key: key) }
        update { $0.defaults = strings }
    }

    /// Sets the defaults from a property list file, such as the emulator's
    /// `remoteConfig:downloadDefaults?format=PLIST`.
    public func setDefaults(fromPlist file: URL) throws {
        let data = try Self.read(file)
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw RemoteConfigError.invalidDefaults("\(file.lastPathComponent) is not a property list: \(error)")
        }
        guard let dictionary = plist as? [String: Any] else {
            throw RemoteConfigError.invalidDefaults("\(file.lastPathComponent) is not a dictionary of defaults")
        }
        try setDefaults(dictionary)
    }

    /// Sets the defaults from a JSON object file, such as `remoteConfig:downloadDefaults?format=JSON`.
    public func setDefaults(fromJSON file: URL) throws {
        let data = try Self.read(file)
        guard let dictionary = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw RemoteConfigError.invalidDefaults("\(file.lastPathComponent) is not a JSON object of defaults")
        }
        try setDefaults(dictionary)
    }

    // MARK: Values

    /// The value for `key`: the activated remote value, else the default, else the static empty value.
    public func configValue(forKey key: String) -> RemoteConfigValue {
        state.withLock { state in
            if let remote = state.active[key] { return RemoteConfigValue(remote, source: .remote) }
            if let value = state.defaults[key] { return RemoteConfigValue(value, source: .default) }
            return RemoteConfigValue("", source: .static)
        }
    }

    /// The value for `key`.
    public subscript(key: String) -> RemoteConfigValue { configValue(forKey: key) }

    /// The keys that have a value from `source`, sorted (`static`: none).
    public func allKeys(from source: RemoteConfigSource) -> [String] {
        state.withLock { state in
            switch source {
            case .remote: state.active.keys.sorted()
            case .default: state.defaults.keys.sorted()
            case .static: []
            }
        }
    }

    /// Makes the last fetched config the active one.
    ///
    /// - Returns: whether that changed anything (false when nothing new was fetched).
    @discardableResult
    public func activate() -> Bool {
        update { state in
            guard state.hasUnactivatedFetch else { return false }
            state.hasUnactivatedFetch = false
            let changed = state.active != state.fetched || state.activeVersion != state.fetchedVersion
            state.active = state.fetched
            state.activeVersion = state.fetchedVersion
            return changed
        }
    }

    /// The template version of the active config (0 before the first activation).
    public var activeTemplateVersion: Int64 { state.withLock { $0.activeVersion } }

    /// The template version of the last fetched config.
    public var fetchedTemplateVersion: Int64 { state.withLock { $0.fetchedVersion } }

    /// How the last fetch went.
    public var lastFetchStatus: RemoteConfigFetchStatus { state.withLock { $0.lastFetchStatus } }

    /// Why the last ``fetchAndActivate()`` answered `.error` (the SDKs hand it to the completion
    /// handler with that status); `nil` after one that succeeded.
    public var lastFetchError: (any Error)? { fetchError.withLock { $0 } }

    /// When the backend last answered a fetch.
    public var lastFetchTime: Date? { state.withLock { $0.lastFetchTime } }

    // MARK: The stale flag

    /// Handles a data message: one with `CONFIG_STATE` marks the config stale (persisted), so the
    /// next fetch skips the cache. It does not fetch: devices fetch on their next launch, so a
    /// publish does not make every device hit the backend at once.
    ///
    /// - Returns: whether the message was a config-state ping.
    @discardableResult
    public func handleRemoteMessage(data: [String: String]) -> Bool {
        guard data["CONFIG_STATE"] != nil else { return false }
        update { state in
            state.isStale = true
            pings.add(1, ordering: .relaxed)
        }
        return true
    }

    /// Whether a `CONFIG_STATE` message arrived since the last successful fetch.
    public var isStale: Bool { state.withLock { $0.isStale } }

    // MARK: Internals

    /// Changes the state and saves it, as the SDK writes its preferences. Saved under the lock,
    /// so that what is saved last is the latest state.
    @discardableResult
    func update<T>(_ change: (inout RemoteConfigState) -> T) -> T {
        state.withLock { state in
            let result = change(&state)
            store.save(state)
            return result
        }
    }

    private static func read(_ file: URL) throws -> Data {
        do {
            return try Data(contentsOf: file)
        } catch {
            throw RemoteConfigError.invalidDefaults("cannot read \(file.path): \(error.localizedDescription)")
        }
    }

    private static func defaultString(_ value: Any, key: String) throws -> String {
        switch value {
        case let text as String: return text
        case let flag as Bool: return flag ? "true" : "false"
        case let number as Int: return String(number)
        case let number as Double: return number == number.rounded() && abs(number) < 1e15
            ? String(Int64(number)) : String(number)
        case let number as NSNumber: return number.stringValue
        case let data as Data: return String(decoding: data, as: UTF8.self)
        case let date as Date: return ISO8601DateFormatter().string(from: date)
        default:
            guard JSONSerialization.isValidJSONObject(value),
                let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
            else {
                throw RemoteConfigError.invalidDefaults("the default for '\(key)' is a \(type(of: value)), not a value")
            }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
