/// The Android notification of a message (`AndroidConfig.notification`).
///
/// Enum-valued fields (`notificationPriority`, `visibility`, `proxy`) hold their canonical
/// proto names, e.g. `PRIORITY_HIGH`.
public struct AndroidNotification: Sendable, Hashable, Codable {
    /// The title.
    public var title: String?
    /// The body text.
    public var body: String?
    /// The drawable resource name of the icon.
    public var icon: String?
    /// The icon colour, `#rrggbb`.
    public var color: String?
    /// The sound to play.
    public var sound: String?
    /// Replaces an existing notification with the same tag.
    public var tag: String?
    /// The activity action run on tap.
    public var clickAction: String?
    /// The localised body string key.
    public var bodyLocKey: String?
    /// The localised body format arguments.
    public var bodyLocArgs: [String]?
    /// The localised title string key.
    public var titleLocKey: String?
    /// The localised title format arguments.
    public var titleLocArgs: [String]?
    /// The notification channel id.
    public var channelId: String?
    /// The accessibility ticker text.
    public var ticker: String?
    /// Whether the notification stays after a tap.
    public var sticky: Bool?
    /// The event time, an RFC 3339 timestamp.
    public var eventTime: String?
    /// Whether the notification stays on this device only.
    public var localOnly: Bool?
    /// `PRIORITY_MIN` ... `PRIORITY_MAX`.
    public var notificationPriority: String?
    /// Whether to use the default sound.
    public var defaultSound: Bool?
    /// Whether to use the default vibration pattern.
    public var defaultVibrateTimings: Bool?
    /// Whether to use the default LED settings.
    public var defaultLightSettings: Bool?
    /// The vibration pattern, as durations.
    public var vibrateTimings: [String]?
    /// `PRIVATE`, `PUBLIC` or `SECRET`.
    public var visibility: String?
    /// The count shown on the app icon.
    public var notificationCount: Int?
    /// The LED settings, canonical JSON (`color`, `lightOnDuration`, `lightOffDuration`).
    public var lightSettings: JSONValue?
    /// The URL of an image.
    public var image: String?
    /// `ALLOW`, `DENY` or `IF_PRIORITY_LOWERED`.
    public var proxy: String?

    /// Creates an Android notification with the most used fields; set the others directly.
    public init(title: String? = nil, body: String? = nil, channelId: String? = nil, image: String? = nil) {
        self.title = title
        self.body = body
        self.channelId = channelId
        self.image = image
    }
}
