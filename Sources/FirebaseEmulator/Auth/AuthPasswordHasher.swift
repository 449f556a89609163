import CloudFunctions
import Foundation

#if canImport(CCrypt)
import CCrypt
#else
import HummingbirdBcrypt
#endif

/// Hashes and verifies passwords with bcrypt: through libxcrypt (`crypt_rn`, `crypt_gensalt_rn`)
/// on Linux, through hummingbird-auth's bcrypt where libxcrypt is not a system library (macOS;
/// there the salt comes from that library's own random source, not from `generator`).
///
/// New hashes use the `$2b$` prefix; verification accepts `$2a$`, `$2b$` and `$2y$`, which hash identically for
/// passwords shorter than 256 bytes. `$2x$` (crypt_blowfish's buggy 8-bit mode) is refused. Each call uses its
/// own heap-allocated `crypt_data` area, zeroed after use, so the hasher is safe to share between threads.
/// Passwords are taken as UTF-8 bytes, cut at the first NUL and at 72 bytes (all bcrypt reads).
public struct AuthPasswordHasher: Sendable, Hashable {
    /// The bcrypt costs libxcrypt accepts (the work is 2^cost rounds).
    public static let costRange = 4...31
    /// The default cost, as most bcrypt libraries use.
    public static let defaultCost = 10
    /// The bcrypt prefixes ``verify(_:against:)`` accepts.
    public static let verifiablePrefixes = ["$2a$", "$2b$", "$2y$"]

    /// The cost of new hashes, within ``costRange``.
    public var cost: Int
    /// Stored hashes with a higher cost are refused by ``verify(_:against:)`` instead of tying up a thread.
    public var maximumVerificationCost: Int

    /// Creates a hasher; costs outside ``costRange`` are clamped into it.
    public init(cost: Int = AuthPasswordHasher.defaultCost, maximumVerificationCost: Int = 31) {
        self.cost = min(max(cost, Self.costRange.lowerBound), Self.costRange.upperBound)
        self.maximumVerificationCost = maximumVerificationCost
    }

    /// Hashes a clear password with a fresh random `$2b$` salt.
    ///
    /// - Parameter generator: the source of the 16 salt bytes.
    /// - Returns: the 60-character bcrypt string.
    /// - Throws: `INTERNAL` when libcrypt fails (it should not).
    public func hash(_ password: String, using generator: inout some RandomNumberGenerator) throws -> String {
        #if canImport(CCrypt)
        var saltBytes = [CChar](repeating: 0, count: 16)
        for index in saltBytes.indices { saltBytes[index] = CChar(truncatingIfNeeded: generator.next() as UInt8) }
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        let made = crypt_gensalt_rn(
            "$2b$", UInt(cost), saltBytes, Int32(saltBytes.count), &setting, Int32(setting.count)
        )
        guard made != nil else { throw Self.failure("bcrypt salt generation failed") }
        let settingText = String(decoding: setting.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let hashed = Self.crypt(password, setting: settingText) else {
            throw Self.failure("bcrypt hashing failed")
        }
        return hashed
        #else
        return Bcrypt.hash(String(password.prefix { $0 != "\0" }), cost: UInt8(cost))
        #endif
    }

    /// Hashes a clear password with a salt from the system's secure generator.
    public func hash(_ password: String) throws -> String {
        var generator = SystemRandomNumberGenerator()
        return try hash(password, using: &generator)
    }

    /// Whether `password` matches a stored `$2a$`/`$2b$`/`$2y$` bcrypt string.
    ///
    /// - Returns: `false` for a wrong password, a malformed or `$2x$` hash, or a cost above
    ///   ``maximumVerificationCost``.
    public func verify(_ password: String, against storedHash: String) -> Bool {
        guard let cost = Self.bcryptCost(storedHash), Self.isVerifiable(storedHash), cost <= maximumVerificationCost
        else { return false }
        #if canImport(CCrypt)
        guard let computed = Self.crypt(password, setting: storedHash) else { return false }
        let left = Array(computed.utf8)
        let right = Array(storedHash.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
        #else
        // `$2y$` hashes as `$2b$` does; that library knows only `$2a$` and `$2b$`.
        let hash = storedHash.hasPrefix("$2y$") ? "$2b$" + storedHash.dropFirst(4) : storedHash
        return Bcrypt.verify(String(password.prefix { $0 != "\0" }), hash: hash)
        #endif
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

    #if canImport(CCrypt)
    /// Runs `crypt_rn` with a private zeroed work area; `nil` on failure.
    private static func crypt(_ password: String, setting: String) -> String? {
        var phrase = Array(password.utf8.prefix { $0 != 0 }.prefix(72)).map { CChar(bitPattern: $0) }
        phrase.append(0)
        defer { for index in phrase.indices { phrase[index] = 0 } }
        let size = MemoryLayout<crypt_data>.size
        let area = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        area.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        defer {
            area.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            area.deallocate()
        }
        guard let output = crypt_rn(phrase, setting, area, Int32(size)) else { return nil }
        return String(cString: output)
    }
    #endif

    private static func failure(_ message: String) -> ServiceError {
        ServiceError(status: "INTERNAL", httpStatus: 500, message: message)
    }
}
