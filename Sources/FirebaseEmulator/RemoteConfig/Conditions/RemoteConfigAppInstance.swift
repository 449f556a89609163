import Foundation
import CloudFunctions

/// What a fetch tells about the app instance asking, as conditions see it.
///
/// A `nil` field is unknown: every condition element reading it is false.
public struct RemoteConfigAppInstance: Sendable, Hashable {
    /// The Firebase installation ID (`app_instance_id`); also the percent randomization id.
    public var installationID: String?
    /// The Firebase App ID (`app_id`).
    public var appID: String?
    /// The app version (`app_version`).
    public var appVersion: String?
    /// The app build (`app_build`).
    public var appBuild: String?
    /// The platform: `ios`, `android` or `web`.
    public var platform: String?
    /// The language tag (`language_code`), e.g. `en-US`.
    public var languageCode: String?
    /// The country code (`country_code`), e.g. `US`.
    public var countryCode: String?
    /// Analytics user properties (`analytics_user_properties`).
    public var userProperties: [String: String]
    /// Custom signals (`custom_signals`).
    public var customSignals: [String: String]
    /// When the app was first opened (`first_open_time`).
    public var firstOpenTime: Date?
    /// The Analytics audiences the instance is in; `nil` when unknown.
    public var audiences: Set<String>?

    /// Creates an app instance; everything defaults to unknown.
    public init(
        installationID: String? = nil,
        appID: String? = nil,
        appVersion: String? = nil,
        appBuild: String? = nil,
        platform: String? = nil,
        languageCode: String? = nil,
        countryCode: String? = nil,
        userProperties: [String: String] = [:],
        customSignals: [String: String] = [:],
        firstOpenTime: Date? = nil,
        audiences: Set<String>? = nil
    ) {
        self.installationID = installationID
        self.appID = appID
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.platform = platform
        self.languageCode = languageCode
        self.countryCode = countryCode
        self.userProperties = userProperties
        self.customSignals = customSignals
        self.firstOpenTime = firstOpenTime
        self.audiences = audiences
    }
}
