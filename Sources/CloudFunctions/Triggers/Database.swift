import CloudEvents

/// Realtime Database triggers.
public enum Database {
    /// Triggers on a path pattern such as `/users/{uid}` in any database instance.
    public static func ref(_ path: String) -> DatabaseTrigger {
        DatabaseTrigger(path: path, instance: "*", options: FunctionOptions())
    }

    /// Triggers in one database instance (or instances matching a pattern).
    public static func instance(_ name: String) -> DatabaseInstanceTrigger {
        DatabaseInstanceTrigger(name: name)
    }
}

/// Selects a database instance; continue with ``ref(_:)``.
public struct DatabaseInstanceTrigger: Sendable {
    let name: String

    /// Triggers on a path pattern in this instance.
    public func ref(_ path: String) -> DatabaseTrigger {
        DatabaseTrigger(path: path, instance: name, options: FunctionOptions())
    }
}

/// A Realtime Database path to trigger on; finish with ``onWrite(_:)`` and its siblings.
///
/// Writes at or below the path fire the trigger once per matching path, with the data
/// before and after at the trigger's path; `{name}` segments become `context.params`.
public struct DatabaseTrigger: Sendable {
    let path: String
    let instance: String
    var functionOptions: FunctionOptions

    init(path: String, instance: String, options: FunctionOptions) {
        self.path = path
        self.instance = instance
        self.functionOptions = options
    }

    /// The same trigger in another instance (or instances matching a pattern).
    public func instance(_ name: String) -> DatabaseTrigger {
        DatabaseTrigger(path: path, instance: name, options: functionOptions)
    }

    /// The same trigger with delivery options changed.
    public func options(_ changes: FunctionOption...) -> DatabaseTrigger {
        DatabaseTrigger(path: path, instance: instance, options: functionOptions.with(changes))
    }

    /// Runs on every create, update and delete at the path.
    public func onWrite(
        _ handler: @escaping @Sendable (Change<DataSnapshot>, EventContext) async throws -> Void
    ) -> CloudFunction {
        function(FirebaseEventType.databaseWritten) { event, context in
            try await handler(try DatabaseTrigger.change(from: event), context)
        }
    }

    /// Runs when data is created at the path; receives the new data.
    public func onCreate(
        _ handler: @escaping @Sendable (DataSnapshot, EventContext) async throws -> Void
    ) -> CloudFunction {
        function(FirebaseEventType.databaseCreated) { event, context in
            try await handler(try DatabaseTrigger.change(from: event).after, context)
        }
    }

    /// Runs when existing data at the path changes.
    public func onUpdate(
        _ handler: @escaping @Sendable (Change<DataSnapshot>, EventContext) async throws -> Void
    ) -> CloudFunction {
        function(FirebaseEventType.databaseUpdated) { event, context in
            try await handler(try DatabaseTrigger.change(from: event), context)
        }
    }

    /// Runs when data at the path is deleted; receives the data as it was.
    public func onDelete(
        _ handler: @escaping @Sendable (DataSnapshot, EventContext) async throws -> Void
    ) -> CloudFunction {
        function(FirebaseEventType.databaseDeleted) { event, context in
            try await handler(try DatabaseTrigger.change(from: event).before, context)
        }
    }

    private func function(
        _ eventType: String,
        handler: @escaping @Sendable (CloudEvent, EventContext) async throws -> Void
    ) -> CloudFunction {
        var problems: [String] = []
        var patterns: [String: PathPattern] = [:]
        var filters: [String: String] = [:]
        do {
            patterns["ref"] = try PathPattern(path)
        } catch {
            problems.append(error.description)
        }
        do {
            let instancePattern = try PathPattern(instance)
            if instancePattern.hasWildcards {
                patterns["instance"] = instancePattern
            } else {
                filters["instance"] = instance
            }
        } catch {
            problems.append(error.description)
        }
        return CloudFunction(
            trigger: EventTrigger(eventType: eventType, filters: filters, pathPatterns: patterns),
            options: functionOptions,
            problems: problems,
            handler: handler
        )
    }

    /// The change an event describes, at the event's `ref`.
    static func change(from event: CloudEvent) throws -> Change<DataSnapshot> {
        let payload = try EventPayloadError.json(from: event)
        guard case .object(let members) = payload, members.keys.contains("data") || members.keys.contains("delta")
        else {
            throw EventPayloadError(eventType: event.type, reason: "expected an object with 'data' and 'delta'")
        }
        let ref = event[attribute: "ref"] ?? event.subject.map { $0.hasPrefix("refs/") ? String($0.dropFirst(5)) : $0 }
        return Change(
            data: members["data"] ?? .null,
            delta: members["delta"] ?? .null,
            path: ref ?? "",
            instance: event[attribute: "instance"]
        )
    }
}
