import CloudEvents
import CloudFunctions
import Foundation

/// The deployed Realtime Database triggers, grouped by path pattern and instance.
///
/// Built from the functions' ``EventTrigger``s: the `ref` path pattern (or an exact `ref`
/// filter), and an `instance` filter or pattern. Other attributes are left to the bus, which
/// matches each emitted event against every trigger again.
struct DatabaseTriggerSet: Sendable {
    /// Triggers sharing a path pattern and instance selector, with the event types they want.
    struct Entry: Sendable {
        var ref: DatabasePattern
        var instance: String?
        var instancePattern: PathPattern?
        var types: Set<String>

        func applies(to namespace: String) -> Bool {
            if let instance, instance != namespace { return false }
            if let instancePattern, !instancePattern.matches(namespace) { return false }
            return true
        }
    }

    /// The four event types, in the order events are emitted for one path.
    static let eventTypes = [
        FirebaseEventType.databaseWritten, FirebaseEventType.databaseCreated, FirebaseEventType.databaseUpdated,
        FirebaseEventType.databaseDeleted,
    ]

    private(set) var entries: [Entry] = []

    /// No triggers.
    init() {}

    /// The database triggers among `triggers` (other event types are ignored).
    init(_ triggers: [EventTrigger]) {
        for trigger in triggers where Self.eventTypes.contains(trigger.eventType) {
            let pattern: PathPattern?
            if let ref = trigger.pathPatterns["ref"] {
                pattern = ref
            } else {
                pattern = trigger.filters["ref"].flatMap { try? PathPattern($0) }
            }
            guard let pattern else { continue }
            let instance = trigger.filters["instance"]
            let instancePattern = trigger.pathPatterns["instance"]
            if let index = entries.firstIndex(where: {
                $0.ref.pattern == pattern && $0.instance == instance && $0.instancePattern == instancePattern
            }) {
                entries[index].types.insert(trigger.eventType)
            } else {
                entries.append(
                    Entry(ref: DatabasePattern(pattern), instance: instance, instancePattern: instancePattern,
                        types: [trigger.eventType]))
            }
        }
    }

    /// Whether no trigger is deployed.
    var isEmpty: Bool { entries.isEmpty }

    /// The concrete trigger paths a write affects, each with the event types wanted there.
    ///
    /// A path is listed when a trigger's pattern matches it and it is an ancestor of a written
    /// location, the location itself, or a descendant holding data before or after the write.
    /// Subtrees the write left equal are skipped. Paths come in discovery order (written
    /// locations in key order; for each, ancestors from the root, then descendants in key order).
    func affectedPaths(
        by change: DatabaseWriteChange, in tree: DatabaseTree, namespace: String
    ) -> [DatabaseAffectedPath] {
        var collector = DatabaseAffectedPathCollector()
        let applicable = entries.filter { $0.applies(to: namespace) }
        guard !applicable.isEmpty else { return [] }
        var written = change.writtenPaths
        if written.count > 1 {
            written.sort { $0.segments.lexicographicallyPrecedes($1.segments, by: DatabaseSortOrder.keyPrecedes) }
        }
        for entry in applicable {
            entry.ref.collect(written, change: change, tree: tree, types: entry.types, into: &collector)
        }
        return collector.paths
    }
}

/// A concrete trigger path a write affects.
struct DatabaseAffectedPath: Sendable {
    var path: DatabasePath
    var types: Set<String>
    /// The storage-form values before and after, when already known from the enumeration.
    var values: (before: JSONValue, after: JSONValue)?
}

/// Collects affected paths without duplicates, keeping the discovery order.
struct DatabaseAffectedPathCollector {
    private(set) var paths: [DatabaseAffectedPath] = []
    private var indices: [DatabasePath: Int] = [:]

    mutating func add(_ path: DatabasePath, types: Set<String>, values: (before: JSONValue, after: JSONValue)?) {
        if let index = indices[path] {
            paths[index].types.formUnion(types)
            if paths[index].values == nil { paths[index].values = values }
        } else {
            indices[path] = paths.count
            paths.append(DatabaseAffectedPath(path: path, types: types, values: values))
        }
    }
}
