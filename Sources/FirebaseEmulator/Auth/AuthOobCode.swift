import CloudEvents
import CloudFunctions
import Foundation

/// An e-mail action code ("out-of-band" code) the emulator would have mailed: a password
/// reset, an e-mail verification, an e-mail link sign-in or an e-mail change. It works once,
/// for its kind and its address (and, but for a sign-in, the user it was made for), until it
/// expires.
public struct AuthOobCode: Sendable, Hashable, Codable {
    /// What the code lets its holder do (`requestType` on the wire).
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case passwordReset = "PASSWORD_RESET"
        case verifyEmail = "VERIFY_EMAIL"
        case emailSignIn = "EMAIL_SIGNIN"
        case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"

        /// The link's `mode`, as Firebase's action handler names it.
        public var mode: String {
            switch self {
            case .passwordReset: "resetPassword"
            case .verifyEmail: "verifyEmail"
            case .emailSignIn: "signIn"
            case .verifyAndChangeEmail: "verifyAndChangeEmail"
            }
        }

        /// How long a code stays valid, as the service keeps them: an hour for a password
        /// reset, six hours for a sign-in link, three days for a verification.
        public var lifetime: Duration {
            switch self {
            case .passwordReset: .seconds(3600)
            case .emailSignIn: .seconds(6 * 3600)
            case .verifyEmail, .verifyAndChangeEmail: .seconds(3 * 86400)
            }
        }
    }

    /// Where the link leads once the action is done, and how apps take it (`ActionCodeSettings`).
    public struct Settings: Sendable, Hashable, Codable {
        /// `continueUrl`: where the action page sends the user afterwards, with the code for an app.
        public var continueUrl: String?
        /// `canHandleCodeInApp`: the app completes the action itself, from the link it is opened with.
        public var canHandleCodeInApp: Bool?
        /// `dynamicLinkDomain` or `linkDomain`: the domain production wraps an app's link in.
        public var linkDomain: String?
        /// `iOSBundleId`: the iOS app to open.
        public var iOSBundleId: String?
        /// `androidPackageName`: the Android app to open.
        public var androidPackageName: String?
        /// `androidInstallApp`: whether to offer installing the Android app.
        public var androidInstallApp: Bool?
        /// `androidMinimumVersion`: the lowest Android app version that can take the link.
        public var androidMinimumVersion: String?

        /// Settings with only what is given.
        public init(
            continueUrl: String? = nil, canHandleCodeInApp: Bool? = nil, linkDomain: String? = nil,
            iOSBundleId: String? = nil, androidPackageName: String? = nil, androidInstallApp: Bool? = nil,
            androidMinimumVersion: String? = nil
        ) {
            self.continueUrl = continueUrl
            self.canHandleCodeInApp = canHandleCodeInApp
            self.linkDomain = linkDomain
            self.iOSBundleId = iOSBundleId
            self.androidPackageName = androidPackageName
            self.androidInstallApp = androidInstallApp
            self.androidMinimumVersion = androidMinimumVersion
        }

        /// Whether the link opens the app at ``continueUrl`` rather than completing on the action page.
        public var opensApp: Bool { canHandleCodeInApp == true && continueUrl != nil }
    }

    /// The code itself: 48 random URL-safe characters.
    public var code: String
    public var kind: Kind
    /// The user's address when the code was made (for a change, the current one: the new one is ``newEmail``).
    public var email: String
    /// The user the code was made for (`nil` for a sign-in link, which may create its user).
    public var localId: String?
    /// The address the user's e-mail becomes (``Kind/verifyAndChangeEmail``).
    public var newEmail: String?
    public var settings: Settings
    /// The link a mail would carry: the emulator's action page with the code and ``Settings/continueUrl``.
    public var link: String
    public var createdAt: Date
    public var expiresAt: Date

    /// The characters codes are made of.
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// A fresh code from the system's random source (codes are secrets: never from a seeded generator).
    static func generateCode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<48).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// The action link for `code`: `{base}/emulator/action?mode=…&lang=en&oobCode=…&apiKey=fake-api-key`,
    /// then `continueUrl` when there is one, as Firebase's Auth emulator writes it.
    static func link(base: String, kind: Kind, code: String, continueUrl: String?) -> String {
        let items = [("mode", kind.mode), ("lang", "en"), ("oobCode", code), ("apiKey", "fake-api-key")]
            + (continueUrl.map { [("continueUrl", $0)] } ?? [])
        return "\(base)/emulator/action?" + items.map { "\($0)=\(escaped($1))" }.joined(separator: "&")

    }

    /// `text` with everything but unreserved characters percent-escaped.
    package static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// RFC 3986's unreserved characters, ASCII only.
    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// The entry `GET /emulator/v1/projects/{p}/oobCodes` lists: Firebase's emulator's
    /// `email`, `requestType`, `oobCode`, `oobLink` (and `newEmail`), with the expiry and settings.
    public var json: JSONValue {
        var entry: [String: JSONValue] = [
            "email": .string(email), "requestType": .string(kind.rawValue), "oobCode": .string(code),
            "oobLink": .string(link), "createTime": .string(RFC3339Timestamp.millisecondString(from: createdAt)),
            "expireTime": .string(RFC3339Timestamp.millisecondString(from: expiresAt)),
        ]
        if let newEmail { entry["newEmail"] = .string(newEmail) }
        if let localId { entry["localId"] = .string(localId) }
        if let settings = try? JSONValue(encoding: settings), settings != [:] { entry["actionCodeSettings"] = settings }
        return .object(entry)
    }
}
