import Foundation

/// The body of `accounts:sendOobCode`: the kind of code, whose it is (`email`, or a client's
/// `idToken`), the new address of a change, and the `ActionCodeSettings` the Admin and client
/// SDKs send alongside (`continueUrl`, `canHandleCodeInApp`…, read into ``settings``).
/// `returnOobLink` (administrators only) answers the link instead of "mailing" it.
public struct AuthOobCodeRequest: Sendable, Hashable, Decodable {
    /// `PASSWORD_RESET`, `VERIFY_EMAIL`, `EMAIL_SIGNIN` or `VERIFY_AND_CHANGE_EMAIL`.
    public var requestType: String?
    public var email: String?
    /// The signed-in user a client asks a verification or an e-mail change for.
    public var idToken: String?
    /// The address to change to (`VERIFY_AND_CHANGE_EMAIL`).
    public var newEmail: String?
    /// Answer the code and its link (administrators only), as the Admin SDKs' `generate_*_link` ask.
    public var returnOobLink: Bool?
    public var settings: AuthOobCode.Settings

    /// Creates a request.
    public init(
        requestType: String?, email: String? = nil, idToken: String? = nil, newEmail: String? = nil,
        returnOobLink: Bool? = nil, settings: AuthOobCode.Settings = AuthOobCode.Settings()
    ) {
        self.requestType = requestType
        self.email = email
        self.idToken = idToken
        self.newEmail = newEmail
        self.returnOobLink = returnOobLink
        self.settings = settings
    }

    private enum CodingKeys: String, CodingKey {
        case requestType, email, idToken, newEmail, returnOobLink, dynamicLinkDomain
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestType = try container.decodeIfPresent(String.self, forKey: .requestType)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        idToken = try container.decodeIfPresent(String.self, forKey: .idToken)
        newEmail = try container.decodeIfPresent(String.self, forKey: .newEmail)
        returnOobLink = try container.decodeIfPresent(Bool.self, forKey: .returnOobLink)
        // The settings are members of the same object; older SDKs name the link domain differently.
        settings = try AuthOobCode.Settings(from: decoder)
        if settings.linkDomain == nil {
            settings.linkDomain = try container.decodeIfPresent(String.self, forKey: .dynamicLinkDomain)
        }
    }
}
