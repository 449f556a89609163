/// The account that published a Remote Config template version.
public struct RemoteConfigUser: Sendable, Hashable, Codable {
    /// The display name.
    public var name: String?
    /// The email address.
    public var email: String
    /// The profile image URL.
    public var imageUrl: String?

    /// Creates a user.
    public init(name: String? = nil, email: String, imageUrl: String? = nil) {
        self.name = name
        self.email = email
        self.imageUrl = imageUrl
    }

    /// The user with `name` and `imageUrl` present (empty when unknown), as the backend writes
    /// it and the Python SDK reads it.
    public var completed: RemoteConfigUser {
        RemoteConfigUser(name: name ?? "", email: email, imageUrl: imageUrl ?? "")
    }

    enum CodingKeys: String, CodingKey { case name, email, imageUrl, imageURL = "image_url" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        email = try container.decodeIfPresent(String.self, forKey: .email) ?? ""
        imageUrl = try container.decodeIfPresent(String.self, forKey: .imageUrl)
            ?? container.decodeIfPresent(String.self, forKey: .imageURL)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(email, forKey: .email)
        try container.encodeIfPresent(imageUrl, forKey: .imageUrl)
    }
}
