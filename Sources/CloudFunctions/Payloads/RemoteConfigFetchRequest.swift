import Foundation

/// What a device sends to fetch its Remote Config values,
/// `POST .../namespaces/{namespace}:fetch`: the app instance the template is evaluated for.
///
/// Read leniently, as the SDKs write it: a field given as a number or a boolean is read as its
/// text, and user properties and custom signals that are not strings, numbers or booleans are
/// left out.
public struct RemoteConfigFetchRequest: Sendable, Hashable, Codable {
    /// The Firebase installation id.
    public var appInstanceId: String?
    public var appInstanceIdToken: String?
    /// The Firebase app id (`1:123:ios:abc`).
    public var appId: String?
    public var appVersion: String?
    public var appBuild: String?
    /// `ios`, `android` or `web`; the emulator reads it from ``appId`` when absent.
    public var platform: String?
    public var platformVersion: String?
    public var languageCode: String?
    public var countryCode: String?
    public var timeZone: String?
    public var sdkVersion: String?
    /// RFC 3339.
    public var firstOpenTime: String?
    /// The instance's Analytics user properties, name → value.
    public var analyticsUserProperties: [String: String]
    /// The instance's custom signals, name → value.
    public var customSignals: [String: String]

    /// Creates a request for an app instance.
    public init(appInstanceId: String? = nil, appId: String? = nil, analyticsUserProperties: [String: String] = [:],
        customSignals: [String: String] = [:])
    {
        self.appInstanceId = appInstanceId
        self.appId = appId
        self.analyticsUserProperties = analyticsUserProperties
        self.customSignals = customSignals
    }

    private enum CodingKeys: String, CodingKey {
        case appInstanceId = "app_instance_id", appInstanceIdToken = "app_instance_id_token", appId = "app_id"
        case appVersion = "app_version", appBuild = "app_build", platform, platformVersion = "platform_version"
        case languageCode = "language_code", countryCode = "country_code", timeZone = "time_zone"
        case sdkVersion = "sdk_version", firstOpenTime = "first_open_time"
        case analyticsUserProperties = "analytics_user_properties", customSignals = "custom_signals"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String? {
            try c.decodeIfPresent(JSONValue.self, forKey: key).flatMap(Self.text)
        }
        func texts(_ key: CodingKeys) throws -> [String: String] {
            (try c.decodeIfPresent(JSONValue.self, forKey: key)?.objectValue ?? [:]).compactMapValues(Self.text)
        }
        appInstanceId = try text(.appInstanceId)
        appInstanceIdToken = try text(.appInstanceIdToken)
        appId = try text(.appId)
        appVersion = try text(.appVersion)
        appBuild = try text(.appBuild)
        platform = try text(.platform)
        platformVersion = try text(.platformVersion)
        languageCode = try text(.languageCode)
        countryCode = try text(.countryCode)
        timeZone = try text(.timeZone)
        sdkVersion = try text(.sdkVersion)
        firstOpenTime = try text(.firstOpenTime)
        analyticsUserProperties = try texts(.analyticsUserProperties)
        customSignals = try texts(.customSignals)
    }

    /// A string, number or boolean as text; `nil` for anything else.
    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number, .bool: value.serialized()
        default: nil
        }
    }
}
