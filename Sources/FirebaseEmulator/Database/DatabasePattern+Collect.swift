import CloudFunctions
import Foundation

extension DatabasePattern {
    /// Adds the paths matching this pattern that `change` may have changed: ancestors of each
    /// written location, the location itself, and descendants holding data before or after.
    func collect(
        _ writtenPaths: [DatabasePath], change: DatabaseWriteChange, tree: DatabaseTree, types: Set<String>,
        into collector: inout DatabaseAffectedPathCollector
    ) {
        for written in writtenPaths {
            var states = initial
            if accepts(states) { collector.add(.root, types: types, values: nil) }
            var depth = 0
            while depth < written.depth, isLive(states) {
                states = step(states, written.segments[depth])
                depth += 1
                if accepts(states) {
                    let path = DatabasePath(uncheckedSegments: Array(written.segments[..<depth]))
                    collector.add(path, types: types, values: nil)
                }
            }
            guard depth == written.depth, isLive(states) else { continue }
            let before = change.before(at: written, in: tree)
            let after = change.after(at: written) ?? tree.storedValue(at: written)
            guard before != after else { continue }
            descend(states, at: written, before: before, after: after, types: types, into: &collector)
        }
    }

    /// Walks the children present before or after the write, following the pattern.
    private func descend(
        _ states: States, at path: DatabasePath, before: JSONValue, after: JSONValue, types: Set<String>,
        into collector: inout DatabaseAffectedPathCollector
    ) {
        let beforeChildren = before.objectValue ?? [:]
        let afterChildren = after.objectValue ?? [:]
        guard !beforeChildren.isEmpty || !afterChildren.isEmpty else { return }
        let keys: [String]
        if let literals = literalKeys(states) {
            keys = literals
        } else {
            var union = Array(afterChildren.keys)
            union.append(contentsOf: beforeChildren.keys.lazy.filter { afterChildren[$0] == nil })
            keys = union.sorted(by: DatabaseSortOrder.keyPrecedes)
        }
        for key in keys {
            let childBefore = beforeChildren[key] ?? .null
            let childAfter = afterChildren[key] ?? .null
            guard childBefore != childAfter else { continue }
            let next = step(states, key)
            guard next != 0 else { continue }
            let child = DatabasePath(uncheckedSegments: path.segments + [key])
            if accepts(next) { collector.add(child, types: types, values: (childBefore, childAfter)) }
            if isLive(next) {
                descend(next, at: child, before: childBefore, after: childAfter, types: types, into: &collector)
            }
        }
    }
}
