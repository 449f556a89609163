import Foundation
import CloudFunctions

/// The input checks of the emulated Identity Toolkit, throwing its exact error messages.
package enum AuthUserValidation {
    /// The longest user id, in UTF-16 code units (as JavaScript counts).
    public static let maximumLocalIdLength = 128
    /// The shortest accepted password, in characters.
    public static let minimumPasswordLength = 6

    /// Checks an email address and returns its canonical (lower-cased, trimmed) form.
    ///
    /// The rule is the emulator's: one `@` with something on both sides.
    /// - Throws: `MISSING_EMAIL` when empty, `INVALID_EMAIL` when malformed.
    public static func canonicalEmail(_ email: String) throws -> String {
        let canonical = email.trimmingCharacters(in: .whitespaces).lowercased()
        guard !canonical.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_EMAIL") }
        guard isValidEmail(canonical) else { throw ServiceError(.invalidArgument, "INVALID_EMAIL") }
        return canonical
    }

    /// Whether `email` has the form `local@domain` (exactly one `@`, no blanks, both parts non-empty).
    public static func isValidEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return false }
        return !email.contains { $0.isWhitespace || $0.isNewline }
    }

    /// Checks a clear password before it is hashed.
    ///
    /// - Throws: `MISSING_PASSWORD` when empty, `WEAK_PASSWORD : Password should be at least 6 characters`
    ///   when shorter than ``minimumPasswordLength``.
    public static func validatePassword(_ password: String) throws {
        guard !password.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_PASSWORD") }
        guard password.count >= minimumPasswordLength else {
            throw ServiceError(.invalidArgument, "WEAK_PASSWORD : Password should be at least 6 characters")
        }
    }

    /// Whether `phoneNumber` is E.164: `+`, a non-zero digit, then up to 14 more digits.
    public static func isValidPhoneNumber(_ phoneNumber: String) -> Bool {
        let scalars = Array(phoneNumber.unicodeScalars)
        guard scalars.count >= 3, scalars.count <= 16, scalars[0] == "+", scalars[1] != "0" else { return false }
        return scalars.dropFirst().allSatisfy { ("0"..."9").contains($0) }
    }

    /// Checks a phone number.
    ///
    /// - Throws: `INVALID_PHONE_NUMBER : Invalid format.` unless it is E.164.
    public static func validatePhoneNumber(_ phoneNumber: String) throws {
        guard isValidPhoneNumber(phoneNumber) else {
            throw ServiceError(.invalidArgument, "INVALID_PHONE_NUMBER : Invalid format.")
        }
    }

    /// Whether `localId` is a usable user id: non-empty and at most 128 UTF-16 code units.
    public static func isValidLocalId(_ localId: String) -> Bool {
        !localId.isEmpty && localId.utf16.count <= maximumLocalIdLength
    }

    /// Checks a user id given by an administrator.
    ///
    /// - Throws: `MISSING_LOCAL_ID` when empty, `INVALID_LOCAL_ID : User ID must be at most 128 characters`
    ///   when longer.
    public static func validateLocalId(_ localId: String) throws {
        guard !localId.isEmpty else { throw ServiceError(.invalidArgument, "MISSING_LOCAL_ID") }
        guard localId.utf16.count <= maximumLocalIdLength else {
            throw ServiceError(.invalidArgument, "INVALID_LOCAL_ID : User ID must be at most 128 characters")
        }
    }

    /// Whether `url` is an absolute URL with a scheme and a host (e.g. `https://example.com/me.png`).
    public static func isValidPhotoURL(_ url: String) -> Bool {
        guard !url.contains(where: { $0.isWhitespace }), let parsed = URL(string: url),
            let scheme = parsed.scheme, !scheme.isEmpty, let host = parsed.host, !host.isEmpty
        else { return false }
        return true
    }

    /// Checks a photo URL.
    ///
    /// - Throws: `INVALID_PHOTO_URL` unless ``isValidPhotoURL(_:)``.
    public static func validatePhotoURL(_ url: String) throws {
        guard isValidPhotoURL(url) else { throw ServiceError(.invalidArgument, "INVALID_PHOTO_URL") }
    }
}
