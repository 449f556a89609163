import Foundation

/// Who logged an Analytics event (`userDim` on the wire).
public struct AnalyticsUserDimensions: Sendable, Hashable {
    /// The user id set with `setUserID`, if any.
    public var userId: String?
    /// The app and the app instance (installation).
    public var appInfo: AnalyticsAppInfo
    /// The user properties in force when the event was logged.
    public var userProperties: [String: AnalyticsUserProperty]

    /// Creates user dimensions.
    public init(
        userId: String? = nil,
        appInfo: AnalyticsAppInfo,
        userProperties: [String: AnalyticsUserProperty] = [:]
    ) {
        self.userId = userId
        self.appInfo = appInfo
        self.userProperties = userProperties
    }

    /// Reads `{"userId", "appInfo": {"appId", "appInstanceId"}, "userProperties": {name: {"value":
    /// {"stringValue"...}, "setTimestampUsec"}}}`.
    init(wire: JSONValue) throws {
        userId = wire["userId"]?.stringValue
        appInfo = AnalyticsAppInfo(
            appId: wire["appInfo"]?["appId"]?.stringValue ?? "",
            appInstanceId: wire["appInfo"]?["appInstanceId"]?.stringValue ?? ""
        )
        var properties: [String: AnalyticsUserProperty] = [:]
        for (name, entry) in wire["userProperties"]?.objectValue ?? [:] {
            let raw = entry["value"].flatMap(AnalyticsLogEvent.unwrap) ?? entry["value"] ?? .null
            let text = raw.stringValue ?? (raw.isNull ? "" : raw.serialized())
            let micros = AnalyticsLogEvent.integer(entry["setTimestampUsec"])
            properties[name] = AnalyticsUserProperty(
                value: text, setTime: micros.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) }
            )
        }
        userProperties = properties
    }

    /// The wire form.
    var wire: JSONValue {
        var members: [String: JSONValue] = [
            "appInfo": ["appId": .string(appInfo.appId), "appInstanceId": .string(appInfo.appInstanceId)],
            "userProperties": .object(userProperties.mapValues(\.wire)),
        ]
        members["userId"] = userId.map(JSONValue.string)
        return .object(members)
    }
}

/// The app that logged an Analytics event.
public struct AnalyticsAppInfo: Sendable, Hashable {
    /// The Firebase app id, e.g. `1:1234567890:ios:0a1b2c3d`.
    public var appId: String
    /// The app instance (installation) id.
    public var appInstanceId: String

    /// Creates app info.
    public init(appId: String, appInstanceId: String) {
        self.appId = appId
        self.appInstanceId = appInstanceId
    }
}

/// The value of a user property and when it was set.
public struct AnalyticsUserProperty: Sendable, Hashable {
    /// The value, as text.
    public var value: String
    /// When it was set, if known.
    public var setTime: Date?

    /// Creates a user property value.
    public init(value: String, setTime: Date? = nil) {
        self.value = value
        self.setTime = setTime
    }

    var wire: JSONValue {
        var members: [String: JSONValue] = ["value": ["stringValue": .string(value)]]
        if let setTime {
            members["setTimestampUsec"] = .string(String(Int64((setTime.timeIntervalSince1970 * 1_000_000).rounded())))
        }
        return .object(members)
    }
}
