/// What a `beforeUserCreated` function changes in the new user; fields left `nil` stay as
/// they are.
public struct BeforeCreateResponse: Sendable, Hashable {
    /// The display name.
    public var displayName: String?
    /// The profile photo URL.
    public var photoURL: String?
    /// Whether the account is disabled.
    public var disabled: Bool?
    /// Whether the email counts as verified.
    public var emailVerified: Bool?
    /// Custom claims to store on the user, which appear in every ID token.
    public var customClaims: [String: JSONValue]?

    /// Creates a response.
    public init(
        displayName: String? = nil,
        photoURL: String? = nil,
        disabled: Bool? = nil,
        emailVerified: Bool? = nil,
        customClaims: [String: JSONValue]? = nil
    ) {
        self.displayName = displayName
        self.photoURL = photoURL
        self.disabled = disabled
        self.emailVerified = emailVerified
        self.customClaims = customClaims
    }

    /// The `userRecord` fields to send, before the `updateMask` is added.
    var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        fields["displayName"] = displayName.map(JSONValue.string)
        fields["photoURL"] = photoURL.map(JSONValue.string)
        fields["disabled"] = disabled.map(JSONValue.bool)
        fields["emailVerified"] = emailVerified.map(JSONValue.bool)
        fields["customClaims"] = customClaims.map(JSONValue.object)
        return fields
    }
}
