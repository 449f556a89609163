import CloudFunctions
import CloudEvents

/// Finds the functions whose triggers match an event without trying every trigger: by
/// event type, then by the first segment of the `ref` path pattern when it is a literal.
///
/// With many database triggers on different top-level paths, an event is tested only
/// against the triggers that share its first path segment.
struct TriggerIndex: Sendable {
    private struct Bucket: Sendable {
        var anyRef: [Int] = []
        var byFirstSegment: [String: [Int]] = [:]
    }

    private let triggers: [EventTrigger]
    private var buckets: [String: Bucket] = [:]

    init(_ triggers: [EventTrigger]) {
        self.triggers = triggers
        for (index, trigger) in triggers.enumerated() {
            var bucket = buckets[trigger.eventType] ?? Bucket()
            if case .literal(let first)? = trigger.pathPatterns["ref"]?.segments.first {
                bucket.byFirstSegment[first, default: []].append(index)
            } else {
                bucket.anyRef.append(index)
            }
            buckets[trigger.eventType] = bucket
        }
    }

    /// The matching triggers' indices, in registration order. When every candidate matches (the
    /// usual case), the answer shares the index's own array: nothing is allocated.
    func matches(_ event: CloudEvent) -> [Int] {
        guard let bucket = buckets[event.type] else { return [] }
        var candidates = bucket.anyRef
        if !bucket.byFirstSegment.isEmpty, let ref = event[attribute: "ref"],
            let keyed = bucket.byFirstSegment[PathPattern.firstSegment(of: ref)]
        {
            candidates = candidates.isEmpty ? keyed : (candidates + keyed).sorted()
        }
        guard let firstMiss = candidates.firstIndex(where: { !triggers[$0].matches(event) }) else { return candidates }
        return candidates[..<firstMiss] + candidates[(firstMiss + 1)...].filter { triggers[$0].matches(event) }
    }
}
