import Foundation
import CloudFunctions

/// The orderings Realtime Database queries sort children by.
package enum DatabaseSortOrder: Sendable {
    /// Whether key `lhs` sorts before key `rhs` (`orderBy="$key"`).
    ///
    /// Keys that parse as 32-bit integers come first, numerically (equal numbers: shorter key
    /// first); then all other keys by UTF-16 code units, as the JavaScript SDK compares them.
    public static func keyPrecedes(_ lhs: String, _ rhs: String) -> Bool {
        compareKeys(lhs, rhs) < 0
    }

    /// Whether value `lhs` sorts before value `rhs` (`orderBy="$value"` or a child).
    ///
    /// `null` < `false` < `true` < numbers (ascending) < strings (UTF-16 order) < objects
    /// (all objects are equal); ties are left to the caller (broken by key).
    public static func valuePrecedes(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        compareValues(lhs, rhs) < 0
    }

    /// -1, 0 or 1 as `lhs` sorts before, with, or after `rhs` by key.
    static func compareKeys(_ lhs: String, _ rhs: String) -> Int {
        if lhs == rhs { return 0 }
        switch (integerKey(lhs), integerKey(rhs)) {
        case (let left?, let right?):
            if left != right { return left < right ? -1 : 1 }
            if lhs.utf8.count != rhs.utf8.count { return lhs.utf8.count < rhs.utf8.count ? -1 : 1 }
            return compareStrings(lhs, rhs)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return compareStrings(lhs, rhs)
        }
    }

    /// -1, 0 or 1 as `lhs` sorts before, with, or after `rhs` by value.
    static func compareValues(_ lhs: JSONValue, _ rhs: JSONValue) -> Int {
        let (leftRank, rightRank) = (rank(lhs), rank(rhs))
        if leftRank != rightRank { return leftRank < rightRank ? -1 : 1 }
        switch (lhs, rhs) {
        case (.number(let left), .number(let right)):
            return left == right ? 0 : (left < right ? -1 : 1)
        case (.string(let left), .string(let right)):
            return compareStrings(left, right)
        default:
            return 0
        }
    }

    /// The type class of a value in value ordering.
    static func rank(_ value: JSONValue) -> Int {
        switch value {
        case .null: 0
        case .bool(let flag): flag ? 2 : 1
        case .number: 3
        case .string: 4
        case .array, .object: 5
        }
    }

    /// Compares by UTF-16 code units.
    static func compareStrings(_ lhs: String, _ rhs: String) -> Int {
        if lhs == rhs { return 0 }
        var left = lhs.utf16.makeIterator()
        var right = rhs.utf16.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, .some): return -1
            case (.some, nil): return 1
            case (let l?, let r?) where l != r: return l < r ? -1 : 1
            default: continue
            }
        }
    }

    /// The number a key stands for when it is a decimal 32-bit integer (`-?digits`, at most 10 digits).
    static func integerKey(_ key: String) -> Int? {
        var utf8 = key.utf8[...]
        let negative = utf8.first == UInt8(ascii: "-")
        if negative { utf8 = utf8.dropFirst() }
        guard !utf8.isEmpty, utf8.count <= 10 else { return nil }
        var result = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
        }
        let signed = negative ? -result : result
        return signed >= Int(Int32.min) && signed <= Int(Int32.max) ? signed : nil
    }
}
