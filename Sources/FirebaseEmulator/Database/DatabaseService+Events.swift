import CloudEvents
import CloudFunctions
import Foundation
import Logging

extension DatabaseService {
    /// How many writes made by functions, each caused by the event of the one before, may
    /// follow each other; the next is refused. Events of such writes carry the extension
    /// attribute `chaindepth`.
    public static let maximumChainDepth = 32

    /// The trigger events of one write: one per (event type, concrete trigger path) that the
    /// deployed triggers ask for and whose value changed, at most ``maximumEventsPerWrite``.
    ///
    /// `data` is the value before the write at the path and `delta` what changed there, both
    /// rendered (arrays per the read rule), so `Change<DataSnapshot>(data:delta:)` gives the
    /// new value back.
    func events(
        for change: DatabaseWriteChange, tree: DatabaseTree, namespace: String, auth: DatabaseWriteAuth, now: Date,
        triggers: DatabaseTriggerSet, chainDepth: Int
    ) -> [CloudEvent] {
        guard !triggers.isEmpty else { return [] }
        var events: [CloudEvent] = []
        var dropped = 0
        for affected in triggers.affectedPaths(by: change, in: tree, namespace: namespace) {
            let (before, after) = affected.values
                ?? (change.before(at: affected.path, in: tree),
                    change.after(at: affected.path) ?? tree.storedValue(at: affected.path))
            guard before != after else { continue }
            let renderedBefore = DatabaseTree.rendered(before)
            let delta = Change<DataSnapshot>.delta(from: renderedBefore, to: DatabaseTree.rendered(after))
            for type in DatabaseTriggerSet.eventTypes where affected.types.contains(type) {
                switch type {
                case FirebaseEventType.databaseCreated: guard before.isNull else { continue }
                case FirebaseEventType.databaseUpdated: guard !before.isNull, !after.isNull else { continue }
                case FirebaseEventType.databaseDeleted: guard after.isNull else { continue }
                default: break
                }
                guard events.count < Self.maximumEventsPerWrite else {
                    dropped += 1
                    continue
                }
                var event = CloudEvent.databaseWrite(
                    type: type, instance: namespace, ref: affected.path.description, before: renderedBefore,
                    delta: delta, location: location, host: databaseHost, authType: auth.authType,
                    authId: auth.authID, time: now)
                event.chainDepth = chainDepth
                events.append(event)
            }
        }
        if dropped > 0 {
            logger.warning(
                "a database write matched more trigger paths than one write may fire; extra events dropped",
                metadata: [
                    "namespace": "\(namespace)", "path": "\(change.path)", "emitted": "\(events.count)",
                    "dropped": "\(dropped)",
                ])
        }
        return events
    }
}
