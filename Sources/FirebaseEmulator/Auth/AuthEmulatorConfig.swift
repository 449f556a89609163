import CloudFunctions
import Foundation

/// The emulator-only settings of a project (`GET/PATCH /emulator/v1/projects/{p}/config`).
///
/// Wire form: `{"signIn": {"allowDuplicateEmails": false}, "emailPrivacyConfig":
/// {"enableImprovedEmailPrivacy": Bool}}`; duplicate emails are never allowed here.
package struct AuthEmulatorConfig: Sendable, Hashable, Codable {
    /// Whether sign-in answers `INVALID_LOGIN_CREDENTIALS` instead of revealing which of email and password
    /// was wrong (off by default, as in the emulator).
    public var enableImprovedEmailPrivacy: Bool

    /// Creates settings.
    public init(enableImprovedEmailPrivacy: Bool = false) {
        self.enableImprovedEmailPrivacy = enableImprovedEmailPrivacy
    }

    /// The wire form.
    public var json: JSONValue {
        [
            "signIn": ["allowDuplicateEmails": false],
            "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(enableImprovedEmailPrivacy)],
        ]
    }
}
