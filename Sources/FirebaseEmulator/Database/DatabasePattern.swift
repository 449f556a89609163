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
