import CloudEvents
import CloudFunctions
import Foundation
import Logging

/// A registered function made callable with a typed payload, the way firebase-functions-test's
/// `wrap` works: the payload becomes the event the real producer would send, and the handler
/// runs once, without retries or timeouts. Errors reach the caller.
///
/// ```swift
/// let pushConfig = try functions.wrap("pushConfig", admin: AdminClients(messaging: recorder))
/// try await pushConfig(TemplateVersion.example(versionNumber: 7))
/// ```
public struct WrappedFunction: Sendable {
    /// The function's name.
    public let name: String
    /// The function.
    public let function: CloudFunction
    /// Its event trigger.
    public let trigger: EventTrigger
    /// The Admin clients its context gets.
    public let admin: AdminClients
    /// The project used in event sources.
    public let project: String
    /// The database instance used in database events.
    public let instance: String
    /// Where the function reads its params and its declared secrets, as a deploy would give them.
    public let environment: [String: String]

    /// Runs the function with a ready-made event; `params` default to what its trigger captures.
    public func callAsFunction(_ event: CloudEvent, params: [String: String]? = nil) async throws {
        let context = EventContext(
            functionName: name,
            event: event,
            params: params ?? trigger.match(event) ?? [:],
            admin: admin,
            paramValues: ParamValues(environment: environment, for: function, named: name),
            logger: Logger(label: "cloud-functions.test")
        )
        try await function.invoke(event, context: context)
    }

    /// Runs a Remote Config function with a template version.
    public func callAsFunction(_ version: TemplateVersion) async throws {
        try await self(CloudEvent.remoteConfigUpdated(version, project: project))
    }

    /// Runs an Auth function with a user.
    public func callAsFunction(_ user: UserRecord) async throws {
        try await self(CloudEvent.authUser(trigger.eventType, user: user, project: project))
    }

    /// Runs a database `onWrite`/`onUpdate` function with a change.
    ///
    /// The event is reported at the snapshots' path, or, when they have none, at the
    /// trigger's path with its `{wildcards}` filled from `params`.
    public func callAsFunction(_ change: Change<DataSnapshot>, params: [String: String] = [:]) async throws {
        let ref = change.after.path.isEmpty ? try refFromPattern(params) : change.after.path
        try await self(databaseEvent(ref: ref, before: change.before.val(), after: change.after.val()))
    }

    /// Runs a database `onCreate` (or `onDelete`) function with the created (or deleted) data.
    public func callAsFunction(_ snapshot: DataSnapshot, params: [String: String] = [:]) async throws {
        let ref = snapshot.path.isEmpty ? try refFromPattern(params) : snapshot.path
        let deleted = trigger.eventType == FirebaseEventType.databaseDeleted
        try await self(databaseEvent(
            ref: ref,
            before: deleted ? snapshot.val() : .null,
            after: deleted ? .null : snapshot.val()
        ))
    }

    private func databaseEvent(ref: String, before: JSONValue, after: JSONValue) -> CloudEvent {
        CloudEvent.databaseWrite(
            type: trigger.eventType,
            instance: instance,
            ref: ref,
            before: before,
            delta: Change<DataSnapshot>.delta(from: before, to: after)
        )
    }

    private func refFromPattern(_ params: [String: String]) throws -> String {
        guard let pattern = trigger.pathPatterns["ref"] else { return "" }
        return try pattern.segments.map { segment throws -> String in
            switch segment {
            case .literal(let text): return text
            case .single(let name?), .multiple(let name?):
                guard let value = params[name] else {
                    throw WrapError(message: "no value for '{\(name)}' of '\(pattern.text)': pass it in params")
                }
                return value
            case .single(nil), .multiple(nil):
                throw WrapError(message: "'\(pattern.text)' has an unnamed wildcard: give the snapshot a path")
            }
        }.joined(separator: "/")
    }
}

/// A function could not be wrapped or called as asked.
public struct WrapError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    public var description: String { message }
}

extension FunctionRegistry {
    /// Wraps a registered function for direct calls in tests.
    ///
    /// - Throws: ``WrapError`` when no function has that name, or it is a request function.
    public func wrap(
        _ name: String,
        admin: AdminClients = AdminClients(),
        project: String = "demo-project",
        instance: String = "demo-project-default-rtdb",
        environment: [String: String] = [:]
    ) throws -> WrappedFunction {
        guard let function = self[name] else {
            throw WrapError(message: "no function named '\(name)'; registered: \(names.joined(separator: ", "))")
        }
        guard let trigger = function.eventTrigger else {
            throw WrapError(message: "'\(name)' answers \(function.trigger.summary) requests: use wrapRequest")
        }
        return WrappedFunction(name: name, function: function, trigger: trigger, admin: admin, project: project,
            instance: instance, environment: environment)
    }
}
