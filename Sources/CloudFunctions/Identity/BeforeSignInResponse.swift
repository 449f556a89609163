/// What a `beforeUserSignedIn` function changes: the user's fields (saved), and claims added
/// to this session's ID token only.
public struct BeforeSignInResponse: Sendable, Hashable {
    /// The changes to the user, as before creation.
    public var user: BeforeCreateResponse
    /// Claims added to the ID token of this sign-in (not stored on the user).
    public var sessionClaims: [String: JSONValue]?

    /// Creates a response.
    public init(
        displayName: String? = nil,
        photoURL: String? = nil,
        disabled: Bool? = nil,
        emailVerified: Bool? = nil,
        customClaims: [String: JSONValue]? = nil,
        sessionClaims: [String: JSONValue]? = nil
    ) {
        self.user = BeforeCreateResponse(displayName: displayName, photoURL: photoURL, disabled: disabled,
            emailVerified: emailVerified, customClaims: customClaims)
        self.sessionClaims = sessionClaims
    }

    var fields: [String: JSONValue] {
        var fields = user.fields
        fields["sessionClaims"] = sessionClaims.map(JSONValue.object)
        return fields
    }
}
