import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird

/// Analytics under `/emulator/v1/projects/{project}`: there is no public ingestion endpoint for
/// the device SDK's `logEvent`, so apps and tests log events with a GA4 Measurement Protocol
/// body, and read the log back.
struct EmulatorAnalyticsRoutes {
    let server: EmulatorServer

    var service: AnalyticsService { server.emulator.analytics }

    func add(to router: Router<EmulatorRequestContext>) {
        let group = server.emulatorProjectRoutes(of: router).open
        // Logs a request's events: `{"app_instance_id", "user_id"?, "user_properties"?, "events": [...]}`;
        // all or nothing, answering the events as stored.
        group.post("apps/:appId/events") { request, context in
            var request = request
            let appSegment = try context.parameters.require("appId")
            return try await log(&request, appId: appSegment.removingPercentEncoding ?? appSegment)
        }
        // The same with the app in the query, as GA4's `mp/collect?firebase_app_id=` takes it.
        group.post("analytics:log") { request, _ in
            var request = request
            return try await log(&request, appId: request.uri.queryParameters.get("firebase_app_id") ?? "")
        }
        // `?appInstanceId=` (without it: every app instance's), `name=`, `limit=` (the newest N,
        // 1,000 without an instance); oldest first.
        group.get("analytics/events") { request, _ in
            let query = request.uri.queryParameters
            let instance = query.get("appInstanceId")
            if instance?.isEmpty == true { throw ServiceError(.invalidArgument, "appInstanceId must not be empty.") }
            let limit = try query.get("limit").map { text in
                guard let limit = Int(text), limit >= 0 else {
                    throw ServiceError(.invalidArgument, "limit must be a non-negative integer, not '\(text)'")
                }
                return limit
            }
            let events = try service.events(appInstanceId: instance, name: query.get("name"),
                limit: limit ?? (instance == nil ? 1000 : nil))
            return Response.json(["events": .array(events.map(Self.eventJSON))])
        }
    }

    private func log(_ request: inout Request, appId: String) async throws -> Response {
        let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
        let events = try await service.logEvents(AnalyticsMeasurementRequest.parse(body), appId: appId)
        return Response.json(["events": .array(events.map(Self.eventJSON))])
    }

    /// `{"name", "params", "timestamp" (RFC 3339), "appInstanceId", "userId"}`.
    static func eventJSON(_ event: AnalyticsEvent) -> JSONValue {
        [
            "name": .string(event.name),
            "params": .object(event.params),
            "timestamp": .string(RFC3339Timestamp.string(from: event.timestamp)),
            "appInstanceId": .string(event.appInstanceId),
            "userId": event.userId.map(JSONValue.string) ?? .null,
        ]
    }
}
