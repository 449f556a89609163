import CloudFunctions
import CloudEvents

/// Finds the functions whose triggers match an event without trying every trigger: by
/// event type, then by the first segment of the `ref` path pattern when it is a literal.
///
/// With many database triggers on different top-level paths (more than ``linearLimit`` of one
/// type), an event is tested only against the triggers that share its first path segment.
/// Functions with the same trigger (several functions on one path) share one test.
struct TriggerIndex: Sendable {
    /// Up to this many distinct triggers of one type are simply tested one by one: cheaper than
    /// cutting out the `ref`'s first segment and looking it up.
    static let linearLimit = 4

    /// The triggers of one type. A class, so that finding an event's bucket copies one
    /// reference rather than its three collections.
    private final class Bucket: Sendable {
        /// Every trigger of the type, in order.
        let all: [Int]
        let anyRef: [Int]
        let byFirstSegment: [String: [Int]]

        /// The bucket of the distinct triggers at positions `all` of `triggers`, in order.
        init(_ all: [Int], of triggers: [EventTrigger]) {
            var anyRef: [Int] = []
            var byFirstSegment: [String: [Int]] = [:]
            for position in all {
                if case .literal(let first)? = triggers[position].pathPatterns["ref"]?.segments.first {
                    byFirstSegment[first, default: []].append(position)
                } else {
                    anyRef.append(position)
                }
            }
            self.all = all
            self.anyRef = anyRef
            self.byFirstSegment = byFirstSegment
        }
    }

    /// A distinct trigger as the index tests it for every event: its filters and patterns in
    /// arrays (iterating a dictionary copies each pattern out of it), and the `ref` pattern
    /// apart, since the index has read `ref` for its buckets. The type is the bucket's. A class,
    /// so testing it costs no copy of its arrays.
    private final class Matcher: Sendable {
        let filters: [(attribute: String, value: String)]
        let ref: PathPattern?
        let otherPatterns: [(attribute: String, pattern: PathPattern)]

        init(_ trigger: EventTrigger) {
            filters = trigger.filters.map { ($0.key, $0.value) }
            ref = trigger.pathPatterns["ref"]
            otherPatterns = trigger.pathPatterns.filter { $0.key != "ref" }.map { ($0.key, $0.value) }
        }

        /// Whether an event of the trigger's type, whose `ref` is `refValue`, matches.
        func matches(_ event: CloudEvent, ref refValue: String?) -> Bool {
            for index in filters.indices where event.filterValue(filters[index].attribute) != filters[index].value {
                return false
            }
            if let ref {
                guard let refValue, ref.matches(refValue) else { return false }
            }
            for index in otherPatterns.indices {
                guard let value = event[attribute: otherPatterns[index].attribute],
                    otherPatterns[index].pattern.matches(value)
                else { return false }
            }
            return true
        }
    }

    /// Up to this many event types are found by comparing the event's type with each in turn:
    /// cheaper than hashing it for the dictionary (a string comparison that fails usually stops
    /// at the lengths, and one that succeeds on a short type compares two words).
    static let linearTypeLimit = 8

    /// The distinct triggers, and for each the functions (lanes) that have it, in order.
    private let triggers: [Matcher]
    private let lanes: [[Int]]
    /// The buckets by event type: in two arrays when there are few types, else in the dictionary.
    private let types: [String]
    private let typeBuckets: [Bucket]
    private let buckets: [String: Bucket]

    init(_ laneTriggers: [EventTrigger]) {
        var distinct: [EventTrigger] = []
        var lanes: [[Int]] = []
        var positions: [EventTrigger: Int] = [:]
        var positionsByType: [String: [Int]] = [:]
        for (lane, trigger) in laneTriggers.enumerated() {
            if let position = positions[trigger] {
                lanes[position].append(lane)
                continue
            }
            positions[trigger] = distinct.count
            positionsByType[trigger.eventType, default: []].append(distinct.count)
            distinct.append(trigger)
            lanes.append([lane])
        }
        self.triggers = distinct.map(Matcher.init)
        self.lanes = lanes
        let buckets = positionsByType.mapValues { Bucket($0, of: distinct) }
        let few = buckets.count <= TriggerIndex.linearTypeLimit
        self.types = few ? Array(buckets.keys) : []
        self.typeBuckets = few ? Array(buckets.values) : []
        self.buckets = few ? [:] : buckets
    }

    /// The triggers of an event type, if any.
    private func bucket(for type: String) -> Bucket? {
        if buckets.isEmpty {
            for position in types.indices where types[position] == type { return typeBuckets[position] }
            return nil
        }
        return buckets[type]
    }

    /// The matching functions' lane indices, in registration order. When one distinct trigger
    /// matches (the usual case), the answer shares the index's own array: nothing is allocated.
    func matches(_ event: CloudEvent) -> [Int] {
        guard let bucket = bucket(for: event.type) else { return [] }
        let ref = event.extensionValue(named: "ref")?.canonicalString
        var candidates = bucket.all
        if candidates.count > TriggerIndex.linearLimit {
            candidates = bucket.anyRef
            if !bucket.byFirstSegment.isEmpty, let ref, let keyed = bucket.byFirstSegment[PathPattern.firstSegment(of: ref)] {
                candidates = candidates.isEmpty ? keyed : (candidates + keyed).sorted()
            }
        }
        guard let first = candidates.firstIndex(where: { triggers[$0].matches(event, ref: ref) }) else { return [] }
        let others = candidates[(first + 1)...].filter { triggers[$0].matches(event, ref: ref) }
        if others.isEmpty { return lanes[candidates[first]] }
        return ([candidates[first]] + others).flatMap { lanes[$0] }.sorted()
    }
}
