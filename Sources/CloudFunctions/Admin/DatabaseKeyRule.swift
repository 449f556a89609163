/// The Realtime Database's rule for keys: UTF-8, at most 768 bytes, none of `. $ # [ ] /` and no
/// ASCII control characters (0x00–0x1F, 0x7F). The emulator enforces it; code that builds keys
/// from other systems' ids checks them with it first.
package enum DatabaseKeyRule {
    /// The longest key, in UTF-8 bytes.
    package static let maximumUTF8Length = 768

    /// Why `key` cannot be a key, in the database's words; `nil` when it can.
    package static func problem(_ key: String) -> String? {
        var length = 0
        for byte in key.utf8 {
            length += 1
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "["),
                UInt8(ascii: "]"):
                return "Keys must not contain '/', '.', '#', '$', '[', or ']'"
            case 0x00...0x1F, 0x7F:
                return "Keys must not contain ASCII control characters"
            default:
                continue
            }
        }
        if length == 0 { return "Keys must not be empty" }
        if length > maximumUTF8Length { return "Keys must be at most \(maximumUTF8Length) bytes of UTF-8" }
        return nil
    }
}
