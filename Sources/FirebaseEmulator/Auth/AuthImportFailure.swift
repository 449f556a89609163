import Foundation
import CloudFunctions

/// One user `accounts:batchCreate` could not import: an entry of the response's `error` list.
package struct AuthImportFailure: Sendable, Hashable {
    /// The user's position in the request's `users` array.
    public var index: Int
    /// The emulator's sentence for the failure.
    public var message: String

    /// Creates a failure.
    public init(index: Int, message: String) {
        self.index = index
        self.message = message
    }

    /// The wire form `{index, message}`.
    public var json: JSONValue { .object(["index": .number(Double(index)), "message": .string(message)]) }

    /// The user has no `localId`.
    public static let localIdMissing = "localId is missing"
    /// The `localId` is longer than 128 characters.
    public static let localIdInvalid = "localId is invalid"
    /// The email is malformed.
    public static let emailInvalid = "email is invalid"
    /// The phone number is not E.164.
    public static let phoneNumberInvalid = "phone number format is invalid"
    /// A provider's raw id is already linked to another stored account (checked by the store).
    public static let rawIdExists = "raw id exists in other account in database"
    /// The `localId` is taken and `allowOverwrite` is off (checked by the store).
    public static let localIdExists = "localId belongs to an existing account - can not overwrite."
    /// The `passwordHash` is neither a bcrypt string nor the base64 of one.
    public static let passwordHashInvalid = "passwordHash is not a valid bcrypt hash ($2a$, $2b$ or $2y$)"
    /// The `passwordHash` is a `$2x$` bcrypt string (crypt_blowfish's buggy mode).
    public static let passwordHashVariantUnsupported = "passwordHash uses the unsupported $2x$ bcrypt variant"
    /// A `providerUserInfo` entry lacks `providerId` or `rawId`.
    public static let providerInfoInvalid = "providerUserInfo entries need a providerId and a rawId"
}
