import Foundation
import CloudFunctions

extension DatabaseTree {
    /// Replaces the value at `path` (REST `PUT`); `null` deletes it.
    ///
    /// Server values are resolved against the current data and `now`; `{".value", ".priority"}`
    /// objects store their value (priorities are dropped).
    /// - Returns: the change at `path`.
    /// - Throws: `ServiceError.invalidArgument` for invalid data; the tree is then unchanged.
    public mutating func set(_ value: JSONValue, at path: DatabasePath, now: Date) throws(ServiceError)
        -> DatabaseWriteChange
    {
        let normalized = try Self.normalized(value, existing: storedValue(at: path), depth: path.depth, now: now)
        return write(normalized, at: path)
    }

    /// Removes the value at `path` (REST `DELETE`).
    ///
    /// - Returns: the change at `path` (its `after` is `null`).
    public mutating func delete(at path: DatabasePath) -> DatabaseWriteChange {
        write(.null, at: path)
    }

    /// Stores `value` as the new child `id` of `path` (REST `POST`).
    ///
    /// - Parameter id: the child key, normally from ``DatabasePushID``.
    /// - Returns: the change at `path/id`; its `path.key` is the `name` to answer with.
    /// - Throws: `ServiceError.invalidArgument` for an invalid `id` or data.
    public mutating func push(_ value: JSONValue, at path: DatabasePath, id: String, now: Date) throws(ServiceError)
        -> DatabaseWriteChange
    {
        try DatabaseKey.validate(id)
        return try set(value, at: path.appending(DatabasePath(uncheckedSegments: [id])), now: now)
    }

    /// Merges `values` into the node at `path` (REST `PATCH`).
    ///
    /// Keys are relative paths (`"a/b"` is a multi-path write); each one replaces its location,
    /// `null` deletes, and locations not named are untouched. Two keys may not overlap
    /// (`"a"` with `"a/b"`, or `"a"` with `"a/"`). The update is all or nothing.
    /// - Returns: the change at `path`, listing every written location.
    /// - Throws: `ServiceError.invalidArgument` for a bad key, overlapping keys or invalid data.
    public mutating func update(_ values: [String: JSONValue], at path: DatabasePath, now: Date) throws(ServiceError)
        -> DatabaseWriteChange
    {
        let writes = try normalizedUpdate(values, at: path, now: now)
        var writtenPaths: [DatabasePath] = []
        var overwritten: [DatabaseWriteChange.Overwritten] = []
        writtenPaths.reserveCapacity(writes.count)
        overwritten.reserveCapacity(writes.count)
        for (absolute, value) in writes {
            let old = Self.replace(in: &root, segments: absolute.segments[...], with: value)
            writtenPaths.append(absolute)
            overwritten.append(.init(path: DatabasePath(uncheckedSegments: Array(absolute.segments[..<old.depth])),
                value: old.value))
        }
        return DatabaseWriteChange(
            path: path, after: storedValue(at: path), writtenPaths: writtenPaths, overwritten: overwritten)
    }

    /// Replaces the node at `path` with a storage-form value.
    private mutating func write(_ value: JSONValue, at path: DatabasePath) -> DatabaseWriteChange {
        let old = Self.replace(in: &root, segments: path.segments[...], with: value)
        let displacedPath = old.depth == path.depth
            ? path : DatabasePath(uncheckedSegments: Array(path.segments[..<old.depth]))
        return DatabaseWriteChange(
            path: path, after: value, writtenPaths: [path], overwritten: [.init(path: displacedPath, value: old.value)])
    }

    /// Validates and normalises the entries of an update, as absolute paths and storage-form values.
    private func normalizedUpdate(_ values: [String: JSONValue], at path: DatabasePath, now: Date)
        throws(ServiceError) -> [(path: DatabasePath, value: JSONValue)]
    {
        let base = storedValue(at: path)
        var relatives: [DatabasePath] = []
        var writes: [(path: DatabasePath, value: JSONValue)] = []
        relatives.reserveCapacity(values.count)
        writes.reserveCapacity(values.count)
        for (key, value) in values {
            let relative = try DatabasePath(key)
            guard !relative.isRoot else {
                throw DatabaseErrorMessage.invalidData("update keys must name a child location, got \"\(key)\"")
            }
            let absolute = try path.appending(relative)
            let existing = Self.storedValue(in: base, at: relative)
            writes.append((absolute, try Self.normalized(value, existing: existing, depth: absolute.depth, now: now)))
            relatives.append(relative)
        }
        try Self.checkNoOverlap(relatives)
        return writes
    }

    /// Throws when one relative path of an update contains another.
    private static func checkNoOverlap(_ paths: [DatabasePath]) throws(ServiceError) {
        guard paths.count > 1 else { return }
        // Sorted segment-wise, an ancestor comes directly before its first descendant.
        let sorted = paths.sorted { $0.segments.lexicographicallyPrecedes($1.segments) }
        for index in sorted.indices.dropFirst() where sorted[index - 1].contains(sorted[index]) {
            throw DatabaseErrorMessage.invalidData("update paths \(sorted[index - 1]) and \(sorted[index]) overlap")
        }
    }
}
