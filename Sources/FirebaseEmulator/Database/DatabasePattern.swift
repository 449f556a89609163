import CloudFunctions
import Foundation

/// A trigger's `ref` path pattern, matched segment by segment against database paths.
///
/// Matching runs the pattern as a small automaton whose states are positions in the pattern
/// (a bit set), so a path can be matched one key at a time while walking a tree: that is how
/// a write finds the trigger paths at, above and below the written location.
struct DatabasePattern: Sendable {
    typealias States = UInt64

    let pattern: PathPattern
    private let segments: [PathPattern.Segment]
    /// The position of the multi-segment wildcard, if any.
    private let multiple: Int?
    /// The states before any key is consumed; `0` when the pattern can never match.
    let start: States

    init(_ pattern: PathPattern) {
        self.pattern = pattern
        segments = pattern.segments
        multiple = segments.firstIndex {
            if case .multiple = $0 { return true }
            return false
        }
        // Longer patterns cannot match a path of at most 32 keys (and would not fit the bit set).
        start = segments.count < 63 ? 1 : 0
    }

    private var acceptState: States { 1 << States(segments.count) }

    /// Adds the states reachable without consuming a key (a `**` may match nothing).
    private func closure(_ states: States) -> States {
        guard let multiple, states & (1 << States(multiple)) != 0 else { return states }
        return states | (1 << States(multiple + 1))
    }

    /// The states before any key is consumed.
    var initial: States { closure(start) }

    /// The states after consuming `key`.
    func step(_ states: States, _ key: String) -> States {
        var next: States = 0
        for (index, segment) in segments.enumerated() where states & (1 << States(index)) != 0 {
            switch segment {
            case .literal(let text): if text == key { next |= 1 << States(index + 1) }
            case .single: next |= 1 << States(index + 1)
            case .multiple: next |= 1 << States(index)
            }
        }
        return closure(next)
    }

    /// Whether the keys consumed so far form a matching path.
    func accepts(_ states: States) -> Bool { states & acceptState != 0 }

    /// Whether more keys can still lead to a match.
    func isLive(_ states: States) -> Bool { states & ~acceptState != 0 }

    /// The only keys that can advance `states`, or `nil` when a wildcard accepts any key.
    func literalKeys(_ states: States) -> [String]? {
        var keys: [String] = []
        for (index, segment) in segments.enumerated() where states & (1 << States(index)) != 0 {
            guard case .literal(let text) = segment else { return nil }
            keys.append(text)
        }
        return keys
    }

    /// Whether the pattern matches `path`.
    func matches(_ path: DatabasePath) -> Bool {
        var states = initial
        for key in path.segments where states != 0 { states = step(states, key) }
        return accepts(states)
    }
}

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
