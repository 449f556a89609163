import CloudFunctions
import Foundation
import HummingbirdBcrypt

/// Hashes and verifies passwords with bcrypt, through hummingbird-auth's portable implementation
/// (the OpenBSD code), the same on Linux and macOS.
///
/// New hashes use the `$2b$` prefix and a salt from the system's secure random source;
/// verification accepts `$2a$`, `$2b$` and `$2y$`, which hash identically for passwords shorter
/// than 256 bytes (and, read as `$2b$`, for longer ones as libxcrypt reads them). `$2x$`
/// (crypt_blowfish's buggy 8-bit mode) is refused. The hasher keeps no state, so it is safe to
/// share between threads. Passwords are taken as UTF-8 bytes, cut at the first NUL and at
/// 72 bytes (all bcrypt reads).
package struct AuthPasswordHasher: Sendable, Hashable {
    /// The bcrypt costs accepted (the work is 2^cost rounds).
    public static let costRange = 4...31
    /// The default cost, as most bcrypt libraries use.
    public static let defaultCost = 10
    /// The bcrypt prefixes ``verify(_:against:)`` accepts.
    public static let verifiablePrefixes = ["$2a$", "$2b$", "$2y$"]

    /// The cost of new hashes, within ``costRange``.
    public var cost: Int
    /// Stored hashes with a higher cost are refused by ``verify(_:against:)`` instead of tying up a thread.
    public var maximumVerificationCost: Int
    /// The default of ``maximumVerificationCost``: 2^16 rounds, a few seconds of one core, above
    /// what password stores use (Parse 10, most others 10 to 14). An imported hash of cost 31
    /// would hold a thread for days at every sign-in, which anyone who knows the email can ask for.
    public static let defaultMaximumVerificationCost = 16

    /// Creates a hasher; costs outside ``costRange`` are clamped into it.
    public init(cost: Int = AuthPasswordHasher.defaultCost,
        maximumVerificationCost: Int = AuthPasswordHasher.defaultMaximumVerificationCost)
    {
        self.cost = min(max(cost, Self.costRange.lowerBound), Self.costRange.upperBound)
        self.maximumVerificationCost = maximumVerificationCost
    }

    /// Hashes a clear password with a fresh random `$2b$` salt.
    ///
    /// - Returns: the 60-character bcrypt string.
    public func hash(_ password: String) -> String {
        Bcrypt.hash(String(password.prefix { $0 != "\0" }), cost: UInt8(cost))
    }

    /// Whether `password` matches a stored `$2a$`/`$2b$`/`$2y$` bcrypt string.
    ///
    /// - Returns: `false` for a wrong password, a malformed or `$2x$` hash, or a cost above
    ///   ``maximumVerificationCost``.
    public func verify(_ password: String, against storedHash: String) -> Bool {
        guard let cost = Self.bcryptCost(storedHash), Self.isVerifiable(storedHash), cost <= maximumVerificationCost
        else { return false }
        // `$2a$` and `$2y$` hash as `$2b$` does (that library wraps `$2a$` keys past 255 bytes
        // where libxcrypt, which Parse's hashes come from, reads 72 as for `$2b$`).
        let hash = storedHash.hasPrefix("$2b$") ? storedHash : "$2b$" + storedHash.dropFirst(4)
        return Bcrypt.verify(String(password.prefix { $0 != "\0" }), hash: hash)
    }

    /// Whether `text` is a well-formed modular bcrypt string with a verifiable prefix.
    public static func isVerifiable(_ text: String) -> Bool {
        bcryptCost(text) != nil && verifiablePrefixes.contains(where: { text.hasPrefix($0) })
    }

    /// The cost of a well-formed 60-character bcrypt string with any `$2?$` prefix, else `nil`.
    public static func bcryptCost(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
            [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "x"), UInt8(ascii: "y")].contains(bytes[2]),
            bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$"),
            let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)), costRange.contains(cost),
            bytes[7...].allSatisfy(isBcryptBase64)
        else { return nil }
        return cost
    }

    private static func isBcryptBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: false
        }
    }
}
