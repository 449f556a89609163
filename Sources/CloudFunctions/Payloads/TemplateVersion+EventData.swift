import CloudEvents
import Foundation

extension TemplateVersion {
    /// Reads a version from an event's JSON data the way ``init(from:)`` does, without the
    /// `Codable` machinery: every event a Remote Config function receives comes through here,
    /// and `JSONDecoder` spent more on this one small object than the worker spent on the rest of
    /// the event.
    ///
    /// Reads the shapes Firebase and the SDKs send: proto3-JSON strings or numbers for the int64
    /// fields, RFC 3339 text for `updateTime`, `null` for absent fields, unknown members skipped.
    /// Anything else (a time in another form, a repeated member, a type the lenient decoding
    /// converts or rejects, malformed JSON) gives `nil`, and the caller decodes with
    /// `JSONDecoder`, so what is accepted and every error stay those of ``init(from:)``.
    init?(eventData data: Data) {
        var scanner = JSONScanner(data.byteArray)
        guard let version = try? Self.read(&scanner) else { return nil }
        scanner.skipWhitespace()
        guard scanner.atEnd else { return nil }
        self = version
    }

    // The readers behind `init(eventData:)`: `nil` (or a thrown error) means "leave it to JSONDecoder".

    private static func read(_ scanner: inout JSONScanner) throws -> TemplateVersion? {
        var version = TemplateVersion(versionNumber: 0)
        var seen = Seen()
        let complete = try members(&scanner) { key, scanner in
            guard seen.first(key) else { return false }
            switch key {
            case "versionNumber", "rollbackSource":
                guard let number = try int64(&scanner) else { return false }
                if key == "versionNumber" { version.versionNumber = number ?? 0 } else { version.rollbackSource = number }
            case "updateTime", "description", "updateOrigin", "updateType":
                guard let text = try string(&scanner) else { return false }
                switch key {
                case "updateTime":
                    guard let text else { break }
                    guard let time = RFC3339Timestamp.date(from: text) else { return false }
                    version.updateTime = time
                case "description": version.description = text
                case "updateOrigin": version.updateOrigin = text.map(UpdateOrigin.init(rawValue:)) ?? .unspecified
                default: version.updateType = text.map(UpdateType.init(rawValue:)) ?? .unspecified
                }
            case "updateUser":
                guard let user = try user(&scanner) else { return false }
                version.updateUser = user
            case "isLegacy":
                switch try scanner.readScalar() {
                case .bool(let flag): version.isLegacy = flag
                case .null: version.isLegacy = nil
                default: return false
                }
            default:
                // At its depth from the top-level object, so that nesting JSONDecoder refuses
                // (more than 512 objects and arrays) is refused here too.
                _ = try scanner.skipValue(depth: 1)
            }
            return true
        }
        return complete ? version : nil
    }

    /// `updateUser`: an object of strings, or `null` (`.some(nil)`).
    private static func user(_ scanner: inout JSONScanner) throws -> RemoteConfigUser?? {
        scanner.skipWhitespace()
        guard scanner.peek == UInt8(ascii: "{") else {
            guard case .null = try scanner.readScalar() else { return nil }
            return .some(nil)
        }
        var name, email, imageUrl, imageURL: String?
        var seen = Seen()
        let complete = try members(&scanner) { key, scanner in
            guard seen.first(key) else { return false }
            switch key {
            case "name", "email", "imageUrl", "image_url":
                guard let text = try string(&scanner) else { return false }
                switch key {
                case "name": name = text
                case "email": email = text
                case "imageUrl": imageUrl = text
                default: imageURL = text
                }
            default:
                _ = try scanner.skipValue(depth: 2)
            }
            return true
        }
        guard complete else { return nil }
        return .some(RemoteConfigUser(name: name, email: email ?? "", imageUrl: imageUrl ?? imageURL))
    }

    /// The known members read so far: a repeated one is left to `JSONDecoder`, whose choice
    /// between the two values is the one that counts.
    private struct Seen {
        private static let keys = [
            "versionNumber", "updateTime", "updateUser", "description", "updateOrigin", "updateType", "rollbackSource",
            "isLegacy", "name", "email", "imageUrl", "image_url",
        ]
        private var bits: UInt16 = 0

        /// Whether `key` is met for the first time; a member not read (skipped) always is.
        mutating func first(_ key: String) -> Bool {
            guard let index = Self.keys.firstIndex(of: key) else { return true }
            let bit = UInt16(1) << index
            defer { bits |= bit }
            return bits & bit == 0
        }
    }

    /// Reads the members of an object, handing each key to `body` with the scanner at its value;
    /// `false` as soon as `body` declines one.
    private static func members(
        _ scanner: inout JSONScanner, _ body: (String, inout JSONScanner) throws -> Bool
    ) throws -> Bool {
        try scanner.expect(UInt8(ascii: "{"))
        if scanner.consume(UInt8(ascii: "}")) { return true }
        repeat {
            let key = try scanner.readString()
            try scanner.expect(UInt8(ascii: ":"))
            guard try body(key, &scanner) else { return false }
        } while scanner.consume(UInt8(ascii: ","))
        try scanner.expect(UInt8(ascii: "}"))
        return true
    }

    /// A string or `null` (`.some(nil)`); `nil` for any other value.
    private static func string(_ scanner: inout JSONScanner) throws -> String?? {
        switch try scanner.readScalar() {
        case .string(let text): .some(text)
        case .null: .some(nil)
        default: nil
        }
    }

    /// An int64 as a proto3 string or an integral JSON number, or `null` (`.some(nil)`).
    private static func int64(_ scanner: inout JSONScanner) throws -> Int64?? {
        switch try scanner.readScalar() {
        case .string(let text): Int64(text).map { .some($0) }
        case .number(let text): Int64(text).map { .some($0) }
        case .null: .some(nil)
        case .bool: nil
        }
    }
}
