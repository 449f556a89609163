import CloudFunctions
import Foundation

/// The app install a client stands for: what the device SDK sends with each fetch, and what
/// conditions are evaluated against.
public struct RemoteConfigInstallation: Sendable, Hashable, Codable {
    /// The Firebase installation id (`app_instance_id`); percent conditions hash it.
    public var installationID: String
    /// The Firebase app id, e.g. `1:1234567890:ios:abcd`.
    public var appID: String
    /// The app version (`CFBundleShortVersionString` / `versionName`).
    public var appVersion: String
    /// The build number.
    public var appBuild: String
    /// `ios`, `android` or `web`.
    public var platform: String
    /// The language, e.g. `en-US`.
    public var languageCode: String
    /// The country, e.g. `US`.
    public var countryCode: String
    /// Analytics user properties conditions can read.
    public var userProperties: [String: String]
    /// Custom signals conditions can read.
    public var customSignals: [String: String]

    /// Creates an installation; the id defaults to a new random one.
    public init(
        installationID: String = RemoteConfigInstallation.newID(),
        appID: String = "1:1234567890:ios:0000000000000000",
        appVersion: String = "1.0",
        appBuild: String = "1",
        platform: String = "ios",
        languageCode: String = "en-US",
        countryCode: String = "US",
        userProperties: [String: String] = [:],
        customSignals: [String: String] = [:]
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
    }

    /// A random 22-character installation id, in the Firebase installations alphabet.
    public static func newID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        return String((0..<22).map { _ in alphabet.randomElement()! })
    }

    /// What a fetch sends for this installation.
    var fetchRequest: RemoteConfigFetchRequest {
        var request = RemoteConfigFetchRequest(appInstanceId: installationID, appId: appID,
            analyticsUserProperties: userProperties, customSignals: customSignals)
        request.appInstanceIdToken = "emulator-token"
        request.appVersion = appVersion
        request.appBuild = appBuild
        request.platform = platform
        request.languageCode = languageCode
        request.countryCode = countryCode
        request.sdkVersion = "swift-cloud-functions"
        request.timeZone = "UTC"
        return request
    }
}
