import CloudEvents
import CloudFunctions
import Foundation
import GRDB

/// The emulated Firebase Analytics of one project: strict `logEvent` validation, per-app-instance user
/// properties and event names, a queryable event log, and one `google.firebase.analytics.log.v1.written`
/// CloudEvent per logged event (what `Analytics.event(_:).onLog` functions receive).
///
/// Requests use the GA4 Measurement Protocol body (``AnalyticsMeasurementRequest``). A request is all or
/// nothing: any invalid event or user property throws ``ServiceError`` (400 `INVALID_ARGUMENT`) and stores and
/// emits nothing.
public final class AnalyticsService: Sendable {
    /// The project the service serves.
    public let project: String

    let store: EmulatorStore
    let clock: any BusClock
    let emit: @Sendable ([OutboxEntry]) -> Void

    /// Opens the service on a store.
    ///
    /// - Parameters:
    ///   - store: where events and user properties live.
    ///   - project: the project id (in CloudEvent sources).
    ///   - clock: the only time source (the log time of events without their own timestamp).
    ///   - emit: called with the outbox entries of each committed write.
    package init(
        store: EmulatorStore,
        project: String,
        clock: any BusClock,
        emit: @escaping @Sendable ([OutboxEntry]) -> Void
    ) throws {
        self.store = store
        self.project = project
        self.clock = clock
        self.emit = emit
    }

    /// Logs the events of one request from an app (`POST /emulator/v1/projects/{p}/analytics:log`, Measurement
    /// Protocol body with `firebase_app_id`).
    ///
    /// User properties are applied first (a `null` value clears one), so the events carry them; each event then
    /// joins the log and emits its CloudEvent, in one transaction.
    ///
    /// - Parameters:
    ///   - request: the app instance, optional user id, user properties and 1 to 25 events.
    ///   - appId: the Firebase app id (`firebase_app_id`).
    /// - Returns: the events as stored, in request order.
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` for a missing app id, a malformed app instance id, bad event
    ///   names, parameters or user properties, the 500th-plus distinct event name of an app instance, or more
    ///   than 25 user property names in the project.
    @discardableResult
    public func logEvents(_ request: AnalyticsMeasurementRequest, appId: String) async throws -> [AnalyticsEvent] {
        guard !appId.isEmpty else {
            throw ServiceError(.invalidArgument, "Missing 'firebase_app_id': the Firebase app id is required.")
        }
        let now = clock.now
        let properties = try Self.propertyTexts(request.userProperties)
        let instance = request.appInstanceId
        let (events, entries) = try await store.write { [self] transaction -> [AnalyticsEvent] in
            let db = transaction.db
            let seen = try AnalyticsStorage.eventNames(db, project: project, appInstanceId: instance)
            try request.validate(seenEventNames: seen)
            let existing = try AnalyticsStorage.userPropertyNames(db, project: project)
            try AnalyticsValidation.validateUserProperties(properties, existingNames: existing)
            for (name, value) in properties {
                try AnalyticsStorage.setUserProperty(
                    db, project: project, appInstanceId: instance, name: name, value: value, at: now
                )
            }
            let current = try AnalyticsStorage.userProperties(db, project: project, appInstanceId: instance)
            let user = AnalyticsUserDimensions(
                userId: request.userId,
                appInfo: AnalyticsAppInfo(appId: appId, appInstanceId: instance),
                userProperties: current
            )
            let events = request.analyticsEvents(receivedAt: now)
            for event in events {
                try AnalyticsStorage.append(db, project: project, appId: appId, event: event)
                let logged = AnalyticsLogEvent(
                    name: event.name, params: event.params, logTime: event.timestamp, user: user
                )
                try transaction.emit(.analyticsLogged(logged, project: project, time: now))
            }
            return events
        }
        if !entries.isEmpty { emit(entries) }
        return events
    }

    /// The logged events of an app instance, oldest first.
    ///
    /// - Parameters:
    ///   - appInstanceId: the app instance.
    ///   - name: only events of this name, when given.
    ///   - limit: only the newest `limit` events, when given.
    public func events(appInstanceId: String?, name: String? = nil, limit: Int? = nil) throws -> [AnalyticsEvent] {
        try store.read { db in
            try AnalyticsStorage.events(
                db, project: project, appInstanceId: appInstanceId, name: name, limit: limit.map { max($0, 0) }
            )
        }
    }

    /// The user properties currently set on an app instance, with when each was set.
    public func userProperties(appInstanceId: String) throws -> [String: AnalyticsUserProperty] {
        try store.read { db in try AnalyticsStorage.userProperties(db, project: project, appInstanceId: appInstanceId) }
    }

    /// The distinct event names an app instance has logged (at most 500).
    public func eventNames(appInstanceId: String) throws -> Set<String> {
        try store.read { db in try AnalyticsStorage.eventNames(db, project: project, appInstanceId: appInstanceId) }
    }

    /// User property values as text (`nil` clears); numbers are written as JSON writes them.
    private static func propertyTexts(_ properties: [String: JSONValue]) throws -> [String: String?] {
        var texts: [String: String?] = [:]
        for (name, value) in properties {
            switch value {
            case .null: texts[name] = .some(nil)
            case .string(let text): texts[name] = text
            case .number: texts[name] = value.serialized()
            default:
                throw ServiceError(.invalidArgument, 
                    "Invalid user property value at 'user_properties.\(name).value': expected a string or number."
                )
            }
        }
        return texts
    }
}

extension AnalyticsService {
    static let exportedTables = ["analytics_events", "analytics_event_names", "analytics_user_properties"]

    /// Logged events, event names and user properties of this project (for `emulators:export`).
    public func exportState() throws -> JSONValue {
        try store.read { db in try exportState(in: db) }
    }

    /// ``exportState()`` inside a transaction of the store.
    func exportState(in db: GRDB.Database) throws -> JSONValue {
        var tables: [String: JSONValue] = [:]
        for table in Self.exportedTables {
            tables[table] = try StoreTableDump.rows(db, table: table, filter: "project = ?", arguments: [project])
        }
        return .object(tables)
    }

    /// Replaces this project's analytics state inside an import transaction.
    func importState(_ state: JSONValue, file: String, in db: GRDB.Database) throws {
        for table in Self.exportedTables {
            try db.execute(sql: "DELETE FROM \(table) WHERE project = ?", arguments: [project])
            // An export of another project lands in this one, as every other service's does.
            try StoreTableDump.insert(db, table: table, rows: state[table] ?? .array([]), file: file,
                setting: ["project": .string(project)])
        }
    }
}
