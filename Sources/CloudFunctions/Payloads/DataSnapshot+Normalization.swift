extension DataSnapshot {
    /// The SDK's `val()` rules: null children dropped, empty containers become null, and
    /// objects keyed by array indices become arrays when the largest index is below twice
    /// the number of children.
    public static func normalize(_ node: JSONValue) -> JSONValue {
        let members: [(String, JSONValue)]
        switch node {
        case .object(let object): members = object.map { ($0.key, $0.value) }
        case .array(let array): members = array.enumerated().map { (String($0.offset), $0.element) }
        default: return node
        }
        var kept: [String: JSONValue] = [:]
        var allIntegerKeys = true
        var maxKey = 0
        for (key, child) in members {
            let value = normalize(child)
            if value.isNull { continue }
            kept[key] = value
            if allIntegerKeys, let index = arrayIndex(key) {
                maxKey = max(maxKey, index)
            } else {
                allIntegerKeys = false
            }
        }
        if kept.isEmpty { return .null }
        if allIntegerKeys, maxKey < 2 * kept.count {
            var array = [JSONValue](repeating: .null, count: maxKey + 1)
            for (key, value) in kept { array[Int(key)!] = value }
            return .array(array)
        }
        return .object(kept)
    }

    /// The index a key names when it is written like one (`0` or no leading zero).
    static func arrayIndex(_ key: String) -> Int? {
        guard let first = key.utf8.first, key.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            first != 0x30 || key.utf8.count == 1, key.utf8.count < 16
        else { return nil }
        return Int(key)
    }
}
