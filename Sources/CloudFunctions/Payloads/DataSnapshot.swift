/// An immutable view of Realtime Database data at a path, with the SDK's reading rules.
///
/// `val()` drops null children, turns empty objects into `null`, and turns objects whose keys
/// are all array indices (with the largest index below twice the count) into arrays, exactly
/// as the Firebase Functions SDK does. `exists()` is `val() != null`.
public struct DataSnapshot: Sendable, Hashable {
    /// The raw data the snapshot was made from, before normalisation.
    public let data: JSONValue
    /// The path of `data` in the database, without leading or trailing slashes.
    public let basePath: String
    /// The child path below `basePath` this snapshot looks at, `""` for the base itself.
    public let childPath: String
    /// The database instance name, when known.
    public let instance: String?

    /// Creates a snapshot of `data` found at `path` in `instance`.
    public init(_ data: JSONValue, path: String = "", instance: String? = nil) {
        self.init(data: data, basePath: DataSnapshot.trim(path), childPath: "", instance: instance)
    }

    init(data: JSONValue, basePath: String, childPath: String, instance: String?) {
        self.data = data
        self.basePath = basePath
        self.childPath = childPath
        self.instance = instance
    }

    /// The full path of this snapshot, without leading or trailing slashes.
    public var path: String {
        [basePath, childPath].filter { !$0.isEmpty }.joined(separator: "/")
    }

    /// The last path segment, or `nil` at the database root.
    public var key: String? {
        path.split(separator: "/").last.map(String.init)
    }

    /// The normalised value at this snapshot's location; `.null` when there is none.
    public func val() -> JSONValue {
        var node = data
        // The segments between the slashes, read in place.
        var rest = childPath[...]
        while !rest.isEmpty {
            let end = rest.utf8.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            let part = rest[..<end]
            rest = end == rest.endIndex ? "" : rest[rest.utf8.index(after: end)...]
            if part.isEmpty { continue }
            switch node {
            case .object(let members): node = members[String(part)] ?? .null
            case .array(let elements):
                guard let index = Int(part), elements.indices.contains(index) else { return .null }
                node = elements[index]
            default: return .null
            }
        }
        return DataSnapshot.normalize(node)
    }

    /// The same as ``val()``, as in the SDK.
    public func exportVal() -> JSONValue { val() }

    /// The same as ``val()``, as in the SDK.
    public func toJSON() -> JSONValue { val() }

    /// Whether there is data here.
    public func exists() -> Bool { !val().isNull }

    /// A snapshot of the child at a relative path.
    public func child(_ path: String) -> DataSnapshot {
        let child = DataSnapshot.trim(path)
        let joined = childPath.isEmpty ? child : child.isEmpty ? childPath : childPath + "/" + child
        return DataSnapshot(data: data, basePath: basePath, childPath: joined, instance: instance)
    }

    /// Whether the child at a relative path exists.
    public func hasChild(_ path: String) -> Bool { child(path).exists() }

    /// Whether this location has any children.
    public func hasChildren() -> Bool { numChildren() > 0 }

    /// The number of children. The holes of an array value (`[1, null, 3]`, which the
    /// database stores as children `0` and `2`) are not children.
    public func numChildren() -> Int {
        switch val() {
        case .object(let members): members.count
        case .array(let elements): elements.count { !$0.isNull }
        default: 0
        }
    }

    /// The keys of the children, in database order (array indices first, then strings); an
    /// array value's holes have none.
    public var childKeys: [String] {
        switch val() {
        case .object(let members): members.keys.sorted(by: DataSnapshot.databaseKeyOrder)
        case .array(let elements): elements.indices.filter { !elements[$0].isNull }.map(String.init)
        default: []
        }
    }

    /// Calls `body` with each child in key order; stops early when `body` returns `true`.
    ///
    /// - Returns: whether `body` stopped the iteration.
    @discardableResult
    public func forEach(_ body: (DataSnapshot) throws -> Bool) rethrows -> Bool {
        for key in childKeys where try body(child(key)) {
            return true
        }
        return false
    }

    /// Always 0: priorities are not delivered to functions.
    public func getPriority() -> Int { 0 }

    /// The path without leading, trailing or repeated slashes; the path itself (no copy) when
    /// it has none, as nearly every path handlers use.
    static func trim(_ path: String) -> String {
        guard hasStraySlash(path) else { return path }
        // The other common shape, one leading slash ("/users/ada", as the emulator writes a
        // trigger's path), needs only that slash dropped.
        if path.utf8.first == UInt8(ascii: "/") {
            let rest = String(Substring(path.utf8.dropFirst()))
            if !rest.isEmpty, !hasStraySlash(rest) { return rest }
        }
        return path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    /// Whether a path starts or ends with a slash or has two in a row: whether it has an empty
    /// segment (the empty path has none).
    static func hasStraySlash(_ path: String) -> Bool {
        let bytes = path.utf8
        guard let first = bytes.first, let last = bytes.last else { return false }
        let slash = UInt8(ascii: "/")
        if first == slash || last == slash { return true }
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == slash, previous == slash { return true }
            previous = byte
        }
        return false
    }

    /// Realtime Database key order: keys that are 32-bit integers first, numerically, then
    /// the rest in byte order.
    public static func databaseKeyOrder(_ lhs: String, _ rhs: String) -> Bool {
        switch (Int32(lhs), Int32(rhs)) {
        case (let l?, let r?): l == r ? lhs < rhs : l < r
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): lhs < rhs
        }
    }
}
