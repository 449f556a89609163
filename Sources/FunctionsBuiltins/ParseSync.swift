import CloudFunctions
import Crypto
import Foundation
import HTTPTypes
import Logging

/// Two-way sync between a Parse Server app and the Realtime Database, for migrations that run
/// the old app and the new one side by side: old clients keep writing to Parse, new clients to
/// the database, and each side sees the other's changes.
///
/// Two kinds of function do it:
/// - **`parseSync`**, an HTTPS function, receives Parse Server's `afterSave` and `afterDelete`
///   webhooks for the synced classes and writes each object at `{path}/{objectId}` (or deletes it).
/// - **`parseSync{Class}`**, one database trigger per class, mirrors every other write at
///   `{path}/{objectId}` to Parse's REST API with the master key: a create is a
///   `POST /classes/{Class}` with the object's id (Parse Server needs `allowCustomObjectId`),
///   an update a `PUT /classes/{Class}/{objectId}` (removed fields are deleted), a delete a
///   `DELETE`.
///
/// Neither side's change comes back to it:
/// - a write made by the webhook is marked at `{markers}/{Class}/{objectId}` with a digest
///   of the value written, in the same atomic update; the trigger skips a value whose
///   digest is the mark;
/// - the trigger's REST calls carry `X-Parse-Cloud-Context: {"firebaseSync": digest}`,
///   which Parse hands to its webhooks, and the webhook skips them; it also skips an object
///   equal to what the database holds, or older (by `updatedAt`) than it or than Parse's own
///   current version (a webhook that arrives late), or deleted from Parse since.
///
/// The trigger also skips a write that a newer one has already replaced (that write is
/// mirrored by its own event), but deletes in Parse the fields it removed that are still
/// absent: the newer write's event does not know of them. Parse being unreachable, overloaded or refusing the keys makes
/// the trigger fail, and the runtime retries it with backoff (1 s, doubling up to 60 s, for
/// 24 hours by default); Parse refusing the data itself is logged and not retried.
///
/// Values keep Parse's JSON encoding (`{"__type": "Date", "iso": …}`, pointers, ACLs), so both
/// sides read back what they wrote; `createdAt` and `updatedAt` are kept as Parse's ISO strings
/// and never sent back, since Parse sets them.
///
/// ```swift
/// functions.use(ParseSync(server: ParseServer(environment: environment)!, classes: ["GameScore"]))
/// // Parse Server: POST /hooks/triggers {"className": "GameScore", "triggerName": "afterSave",
/// //   "url": "<parseSync's URL>"}, and the same for afterDelete.
/// ```
public struct ParseSync: FunctionsPlugin {
    /// The Parse Server.
    public var server: ParseServer
    /// The database path of each synced class's objects, by class name.
    public var paths: [String: String]
    /// The webhook function's name; each class's trigger is named this followed by the class.
    public var name: String
    /// The database path under which the sync marks the values it wrote.
    public var markers: String
    /// Delivery options of the triggers, applied over the defaults (retries with backoff).
    public var options: [FunctionOption]

    /// Syncs classes to `{root}/{Class}`.
    ///
    /// - Parameters:
    ///   - server: the Parse Server.
    ///   - classes: the synced classes; system classes (`_User`, …) cannot be synced.
    ///   - root: the database path holding one child per class.
    ///   - name: the webhook function's name.
    ///   - markers: where the sync's marks are kept.
    ///   - options: delivery options of the triggers.
    public init(
        server: ParseServer,
        classes: [String],
        root: String = "parse",
        name: String = "parseSync",
        markers: String = "parseSyncMarks",
        options: [FunctionOption] = []
    ) {
        let root = root.split(separator: "/").joined(separator: "/")
        self.init(server: server, paths: Dictionary(classes.map { ($0, root.isEmpty ? $0 : "\(root)/\($0)") },
            uniquingKeysWith: { first, _ in first }), name: name, markers: markers, options: options)
    }

    /// Syncs each class to the database path given for it.
    public init(
        server: ParseServer,
        paths: [String: String],
        name: String = "parseSync",
        markers: String = "parseSyncMarks",
        options: [FunctionOption] = []
    ) {
        self.server = server
        self.paths = paths.mapValues { $0.split(separator: "/").joined(separator: "/") }
        self.name = name
        self.markers = markers.split(separator: "/").joined(separator: "/")
        self.options = options
    }

    /// The defaults of the triggers' delivery: retried, 1 s after the first failure, doubling up to a minute.
    public static let defaultOptions: [FunctionOption] = [
        .retry(true), .backoff(BackoffPolicy(initial: .seconds(1), maximum: .seconds(60))),
    ]

    /// The name of the trigger that mirrors a class's database writes to Parse.
    public func triggerName(for className: String) -> String { name + className }

    public func register(_ functions: inout FunctionRegistry) {
        let sync = self
        functions[name] = Https.onRequest { request, response, context in
            response = await sync.receive(request, context: context)
        }
        for (className, path) in paths.sorted(by: { $0.key < $1.key }) {
            if let problem = Self.problem(className: className, path: path, markers: markers) {
                functions.reportProblem(problem, function: triggerName(for: className))
                continue
            }
            var trigger = Database.ref("/\(path)/{objectId}").onWrite { change, context in
                try await sync.mirror(className: className, change: change, context: context)
            }
            trigger.options = trigger.options.with(Self.defaultOptions + options)
            functions[triggerName(for: className)] = trigger
        }
    }

    /// What makes a class unsyncable, in words.
    static func problem(className: String, path: String, markers: String) -> String? {
        let bytes = Array(className.utf8)
        let isLetter = { (byte: UInt8) in (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard let first = bytes.first, isLetter(first),
            bytes.allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        else {
            return "'\(className)' is not a Parse class that can be synced: use a class of your own "
                + "(a letter, then letters, digits or '_'); system classes such as _User are not synced"
        }
        if path.isEmpty { return "the database path of \(className) cannot be the root" }
        if path == markers || path.hasPrefix(markers + "/") || markers.hasPrefix(path + "/") || markers.isEmpty {
            return "the database path of \(className) ('\(path)') overlaps the sync's marks ('\(markers)')"
        }
        return nil
    }

    func objectPath(_ className: String, _ objectId: String) -> String? {
        paths[className].map { "\($0)/\(objectId)" }
    }

    func markerPath(_ className: String, _ objectId: String) -> String { "\(markers)/\(className)/\(objectId)" }

    /// The digest that marks a value as written by the sync: SHA-256 of its normalised JSON
    /// with keys sorted.
    static func digest(_ value: JSONValue) -> String {
        SHA256.hash(data: DataSnapshot.normalize(value).serializedData(sortedKeys: true))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// The context the trigger's REST calls carry, which the webhook recognises.
    static let contextKey = "firebaseSync"
}
