import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird

/// The emulator's own routes under `/emulator/v1/projects/{project}` (fixed: other tools rely
/// on them): device registration and inboxes, and the event log.
struct EmulatorRoutes {
    let server: EmulatorServer

    func add(to router: Router<EmulatorRequestContext>) {
        let (group, owner) = server.emulatorProjectRoutes(of: router)
        // What a device does for itself: open, as an app's own calls carry no credential.
        group.post("devices") { request, context in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            let platform = body["platform"]?.stringValue
            let token = try await server.emulator.messaging.registerDevice(platform: platform)
            return Response.json(["token": .string(token)])
        }
        group.get("devices") { request, _ in
            let limit = try Self.limit(of: request, default: 1000, maximum: 100_000)
            let devices = try server.emulator.messaging.devices(limit: limit).map { device -> JSONValue in
                ["token": .string(device.token), "platform": device.platform.map(JSONValue.string) ?? .null,
                    "createdAt": .string(RFC3339Timestamp.string(from: device.createdAt)),
                    "topics": .array(device.topics.map(JSONValue.string))]
            }
            return Response.json(["devices": .array(devices)])
        }
        group.get("devices/:token/messages") { _, context in
            // Clients may percent-encode the token's ':' (FCM tokens never hold a '%').
            let raw = try context.parameters.require("token")
            let token = raw.removingPercentEncoding ?? raw
            let messages = try server.emulator.messaging.inbox(token: token)
            return Response.json(["messages": try JSONValue(encoding: messages)])
        }
        // `{"count": 5, "windowSeconds": 3600}` throttles each app instance's fetches; `{}` turns it off.
        owner.put("remoteConfig:fetchLimit") { request, _ in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            guard body["count"] != nil || body["windowSeconds"] != nil else {
                server.emulator.remoteConfig.setFetchLimit(nil)
                return Response.json([:])
            }
            guard let count = body["count"]?.numberValue, (1...1_000_000).contains(count), count == count.rounded(),
                let window = body["windowSeconds"]?.numberValue, window > 0, window <= 31_536_000
            else {
                throw ServiceError(.invalidArgument, 
                    "count must be an integer from 1 to 1000000 and windowSeconds a number of seconds up to a year")
            }
            server.emulator.remoteConfig.setFetchLimit(
                RemoteConfigFetchLimit(count: Int(count), window: .milliseconds(Int64(window * 1000))))
            return Response.json(["count": .number(count), "windowSeconds": .number(window)])
        }
        // Writes the whole state to a directory of this machine (the owner's only, as every
        // emulator route that changes state), like `firebase emulators:export`.
        owner.post("export") { request, _ in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            guard let path = body["path"]?.stringValue, path.hasPrefix("/") else {
                throw ServiceError(.invalidArgument, "path must be an absolute directory path")
            }
            do {
                try await server.emulator.export(to: URL(fileURLWithPath: path, isDirectory: true))
            } catch let error as ServiceError {
                throw error
            } catch {
                throw ServiceError(.failedPrecondition, 
                    "cannot write the export to \(path): \(error.localizedDescription)")
            }
            return Response.json(["path": .string(path)])
        }
        // `?window=SECONDS` (default a day): each function's deliveries, attempts, outcomes, p50/p99
        // and latest errors over the deliveries that changed within it.
        group.get("functions:stats") { request, _ in
            var window = 86_400.0
            if let text = request.uri.queryParameters["window"] {
                guard let seconds = Double(text), seconds > 0, seconds <= 31_536_000 else {
                    throw ServiceError(.invalidArgument, "window must be a number of seconds up to a year")
                }
                window = seconds
            }
            let since = server.emulator.clock.now.addingTimeInterval(-window)
            let statistics = try server.emulator.store.functionStatistics(since: since)
            return Response.json(["window": .number(window), "functions": .array(statistics.map(Self.statisticsJSON))])
        }
        // The workers' log lines, oldest first: `?function=NAME`, `?severity=WARNING` (that and
        // above), `?limit=N` (the newest N, default 100). With `Accept: text/event-stream`, those
        // lines and then each new one as it is written, as `event: log` frames.
        group.get("logs") { request, _ in
            let logs = server.deployments.logs
            let function = request.uri.queryParameters["function"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            let severity = request.uri.queryParameters["severity"].map { String($0).uppercased() } ?? "DEFAULT"
            guard FunctionLogs.severities.contains(severity) else {
                throw ServiceError(.invalidArgument,
                    "severity must be one of \(FunctionLogs.severities.joined(separator: ", "))")
            }
            let limit = try Self.limit(of: request, default: 100, maximum: logs.capacity)
            guard request.headers[.accept]?.contains("text/event-stream") == true else {
                let entries = logs.entries(function: function, minimumSeverity: severity, limit: limit)
                return Response.json(["entries": .array(entries.map(\.json))])
            }
            // Followed before the backlog is read, so that no line falls between the two.
            let followed = logs.follow()
            let backlog = logs.entries(function: function, minimumSeverity: severity, limit: limit)
            let last = backlog.last?.sequence ?? 0
            let matches = FunctionLogs.filter(function: function, minimumSeverity: severity)
            let frame: @Sendable (FunctionLogs.Entry) -> String = { Response.eventFrame("log", data: $0.json.serialized()) }
            return Response.eventStream(opening: ": connected\n\n" + backlog.map(frame).joined()) { frames in
                for await entry in followed where entry.sequence > last && matches(entry) {
                    frames.yield(frame(entry))
                }
            }
        }
        group.get("events") { request, _ in
            // `?wait=true` answers once every queued delivery has finished (retries due later
            // excepted); `?wait=all` once the retries scheduled have run too.
            // `?limit=N` (default 1,000, at most 1,000,000): the newest N events, oldest first.
            switch request.uri.queryParameters["wait"] {
            case "true": await server.emulator.waitUntilIdle()
            case "all": await server.emulator.waitUntilIdle(includingRetries: true)
            case nil: break
            case let other?: throw ServiceError(.invalidArgument, "wait must be true or all, not '\(other)'")
            }
            let log = try server.emulator.store.eventLog(limit: Self.limit(of: request, default: 1000, maximum: 1_000_000))
            return Response.json(["events": .array(log.map(EmulatorRoutes.eventJSON))])
        }
    }

    /// The `?limit=` of a listing: a whole number from 1 to `maximum`, `default` when absent.
    static func limit(of request: Request, default defaultLimit: Int, maximum: Int) throws -> Int {
        guard let text = request.uri.queryParameters["limit"] else { return defaultLimit }
        guard let number = Int(text), (1...maximum).contains(number) else {
            throw ServiceError(.invalidArgument, "limit must be a whole number from 1 to \(maximum)")
        }
        return number
    }

    /// Milliseconds, rounded to the microsecond, as the event log and statistics show them.
    static func milliseconds(_ value: Double) -> JSONValue {
        .number((value * 1000).rounded() / 1000)
    }

    /// One function's entry in `GET .../functions:stats`.
    static func statisticsJSON(_ statistics: FunctionStatistics) -> JSONValue {
        [
            "function": .string(statistics.function),
            "events": .number(Double(statistics.events)),
            "attempts": .number(Double(statistics.attempts)),
            "succeeded": .number(Double(statistics.succeeded)),
            "failedAttempts": .number(Double(statistics.failedAttempts)),
            "retrying": .number(Double(statistics.retrying)),
            "deadLettered": .number(Double(statistics.deadLettered)),
            "p50Ms": statistics.p50Milliseconds.map(milliseconds) ?? .null,
            "p99Ms": statistics.p99Milliseconds.map(milliseconds) ?? .null,
            "lastErrors": .array(statistics.lastErrors.map {
                ["eventId": .string($0.eventId), "error": .string($0.error),
                    "time": .string(RFC3339Timestamp.string(from: $0.time))]
            }),
        ]
    }

    static func eventJSON(_ entry: EventLogEntry) -> JSONValue {
        let event = entry.entry.event
        return [
            "id": .string(event.id),
            "type": .string(event.type),
            "source": .string(event.source),
            "subject": event.subject.map(JSONValue.string) ?? .null,
            "time": event.time.map { .string(RFC3339Timestamp.string(from: $0)) } ?? .null,
            "done": .bool(entry.done),
            "recoveries": .number(Double(entry.recoveries)),
            // The trace its write and deliveries belong to (GET .../traces/{traceId}).
            "traceId": event.traceParent.map { .string($0.traceID) } ?? .null,
            "deliveries": .array(entry.deliveries.map { delivery in
                [
                    "function": .string(delivery.function),
                    "attempts": .number(Double(delivery.attempts)),
                    "status": .string(delivery.status),
                    "lastError": delivery.lastError.map(JSONValue.string) ?? .null,
                    "attemptLog": .array(delivery.attemptLog.map { attempt in
                        [
                            "attempt": .number(Double(attempt.attempt)),
                            "startedAt": .string(RFC3339Timestamp.string(from: attempt.startedAt)),
                            "durationMs": milliseconds(attempt.finishedAt.timeIntervalSince(attempt.startedAt) * 1000),
                            "outcome": .string(attempt.succeeded ? "succeeded" : "failed"),
                            "error": attempt.error.map(JSONValue.string) ?? .null,
                        ]
                    }),
                ]
            }),
        ]
    }
}
