import Foundation

/// The body of `accounts:sendOobCode`: the kind of code, whose it is (`email`, or a client's
/// `idToken`), the new address of a change, and the `ActionCodeSettings` the Admin and client
/// SDKs send. `returnOobLink` (administrators only) answers the link instead of "mailing" it.
public struct AuthOobCodeRequest: Sendable, Hashable, Codable {
    /// `PASSWORD_RESET`, `VERIFY_EMAIL`, `EMAIL_SIGNIN` or `VERIFY_AND_CHANGE_EMAIL`.
    public var requestType: String?
    public var email: String?
    /// The signed-in user a client asks a verification or an e-mail change for.
    public var idToken: String?
    /// The address to change to (`VERIFY_AND_CHANGE_EMAIL`).
    public var newEmail: String?
    /// Answer the code and its link (administrators only), as the Admin SDKs' `generate_*_link` ask.
    public var returnOobLink: Bool?
    public var continueUrl: String?
    public var canHandleCodeInApp: Bool?
    /// The Dynamic Links domain of older SDKs.
    public var dynamicLinkDomain: String?
    /// The Hosting domain of newer SDKs.
    public var linkDomain: String?
    public var iOSBundleId: String?
    public var androidPackageName: String?
    public var androidInstallApp: Bool?
    public var androidMinimumVersion: String?

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
        continueUrl = settings.continueUrl
        canHandleCodeInApp = settings.canHandleCodeInApp
        linkDomain = settings.linkDomain
        iOSBundleId = settings.iOSBundleId
        androidPackageName = settings.androidPackageName
        androidInstallApp = settings.androidInstallApp
        androidMinimumVersion = settings.androidMinimumVersion
    }

    /// The action code settings the request carries.
    public var settings: AuthOobCode.Settings {
        AuthOobCode.Settings(
            continueUrl: continueUrl, canHandleCodeInApp: canHandleCodeInApp, linkDomain: linkDomain ?? dynamicLinkDomain,
            iOSBundleId: iOSBundleId, androidPackageName: androidPackageName, androidInstallApp: androidInstallApp,
            androidMinimumVersion: androidMinimumVersion)
    }
}
