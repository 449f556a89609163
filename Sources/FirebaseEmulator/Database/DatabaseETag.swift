import Foundation
import CloudFunctions

/// ETags of Realtime Database values, for `X-Firebase-ETag`, `if-match` and `if-none-match`.
///
/// A present value's tag is a 64-bit FNV-1a hash of a canonical encoding (type tag, then
/// numbers by bit pattern, strings by UTF-8 length and bytes; an object hashes each member
/// as its key plus its value's hash and adds the member hashes up, so member order does not
/// matter and no sorting is needed; arrays count as index-keyed objects), written as 16
/// lowercase hex digits. Equal data always gets the same tag. A missing value (`null`) has
/// the tag `null_etag`.
package enum DatabaseETag: Sendable {
    /// The tag of a location with no data.
    public static let missing = "null_etag"

    /// The tag of `value` (pass a normalised value, as ``DatabaseTree`` stores or returns it).
    public static func etag(of value: JSONValue) -> String {
        if value.isNull { return missing }
        let hex = String(hash(value), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The 64-bit hash of a value.
    static func hash(_ value: JSONValue) -> UInt64 {
        var hasher = FNV1aHasher()
        switch value {
        case .null:
            hasher.combine(byte: 0)
        case .bool(let flag):
            hasher.combine(byte: flag ? 2 : 1)
        case .number(let number):
            hasher.combine(byte: 3)
            hasher.combine((number == 0 ? 0 : number).bitPattern)
        case .string(let string):
            hasher.combine(byte: 4)
            hasher.combine(string)
        case .array(let elements):
            var members: [String: JSONValue] = [:]
            for (index, element) in elements.enumerated() where !element.isNull { members[String(index)] = element }
            return hash(.object(members))
        case .object(let members):
            var sum: UInt64 = 0
            for (key, member) in members {
                var memberHasher = FNV1aHasher()
                memberHasher.combine(key)
                memberHasher.combine(hash(member))
                sum &+= memberHasher.state
            }
            hasher.combine(byte: 5)
            hasher.combine(UInt64(members.count))
            hasher.combine(sum)
        }
        return hasher.state
    }
}
