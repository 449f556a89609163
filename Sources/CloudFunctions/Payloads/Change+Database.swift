extension Change where T == DataSnapshot {
    /// The change a database event describes: `before` is the event's `data`, `after` is
    /// `data` with `delta` applied by ``applyChange(_:_:)``.
    public init(data: JSONValue, delta: JSONValue, path: String, instance: String? = nil) {
        self.init(
            before: DataSnapshot(data, path: path, instance: instance),
            after: DataSnapshot(Change.applyChange(data, delta), path: path, instance: instance)
        )
    }

    /// The SDK's merge of a delta into earlier data.
    ///
    /// When either side is not an object the result is `delta`. Otherwise keys are merged
    /// deeply: a key set to `null` in `delta` is removed, keys only in `data` are kept unless
    /// they are null.
    public static func applyChange(_ data: JSONValue, _ delta: JSONValue) -> JSONValue {
        guard let destination = members(of: delta), let source = members(of: data) else { return delta }
        var result: [String: JSONValue] = [:]
        for (key, value) in source where !value.isNull && destination[key] == nil {
            result[key] = value
        }
        for (key, value) in destination where !value.isNull {
            result[key] = applyChange(source[key] ?? .null, value)
        }
        return .object(result)
    }

    /// The delta that turns `before` into `after` under ``applyChange(_:_:)``: changed keys,
    /// with `null` for removed ones. Equal subtrees are left out.
    public static func delta(from before: JSONValue, to after: JSONValue) -> JSONValue {
        guard let old = members(of: before), let new = members(of: after) else { return after }
        if new.isEmpty { return .null }
        var result: [String: JSONValue] = [:]
        for (key, value) in new where old[key] != value {
            result[key] = delta(from: old[key] ?? .null, to: value)
        }
        for (key, value) in old where new[key] == nil && !value.isNull {
            result[key] = .null
        }
        return .object(result)
    }

    private static func members(of value: JSONValue) -> [String: JSONValue]? {
        switch value {
        case .object(let object): object
        case .array(let array):
            Dictionary(uniqueKeysWithValues: array.enumerated().map { (String($0.offset), $0.element) })
        default: nil
        }
    }
}
