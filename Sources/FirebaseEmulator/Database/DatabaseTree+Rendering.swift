import Foundation
import CloudFunctions

extension DatabaseTree {
    /// A stored value in the form the REST API returns it: objects whose keys are all array
    /// indices are rendered as arrays, at every level.
    ///
    /// An object is rendered as an array when every key is a canonical non-negative integer
    /// (`"0"`, `"7"`, not `"07"`) and the largest index is less than twice the number of keys
    /// (more than half of the slots are filled); missing slots become `null`.
    /// `{"0": "a", "3": "b"}` becomes `["a", null, null, "b"]`; `{"0": "a", "4": "b"}` stays an object.
    public static func rendered(_ value: JSONValue) -> JSONValue {
        renderedIfChanged(value) ?? value
    }

    /// The rendered value, or `nil` when rendering leaves `value` as it is (no allocation then).
    private static func renderedIfChanged(_ value: JSONValue) -> JSONValue? {
        guard case .object(let members) = value else { return nil }
        var changed: [String: JSONValue]?
        for (key, member) in members {
            guard let rendered = renderedIfChanged(member) else { continue }
            if changed == nil { changed = members }
            changed?[key] = rendered
        }
        let current = changed ?? members
        if let elements = arrayElements(current) { return .array(elements) }
        return changed.map(JSONValue.object)
    }

    /// The array an object renders as, or `nil` when it stays an object.
    static func arrayElements(_ members: [String: JSONValue]) -> [JSONValue]? {
        guard !members.isEmpty else { return nil }
        var maximum = 0
        for key in members.keys {
            guard let index = arrayIndex(key) else { return nil }
            maximum = max(maximum, index)
        }
        guard maximum < 2 * members.count else { return nil }
        var elements = [JSONValue](repeating: .null, count: maximum + 1)
        for (key, member) in members {
            if let index = arrayIndex(key) { elements[index] = member }
        }
        return elements
    }

    /// The index a key stands for: a canonical decimal in `0...Int32.max`.
    static func arrayIndex(_ key: String) -> Int? {
        let utf8 = key.utf8
        guard let first = utf8.first, utf8.count <= 10, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9"),
            first != UInt8(ascii: "0") || utf8.count == 1
        else { return nil }
        var result = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return result <= Int(Int32.max) ? result : nil
    }
}
