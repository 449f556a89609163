import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird

/// Cloud Tasks' task API for the deployed task-queue functions' queues, where firebase-admin
/// calls it with `CLOUD_TASKS_EMULATOR_HOST` (`/projects/{p}/locations/{l}/queues/{q}/tasks`)
/// and where Google's client libraries call it (the same under `/v2`). Owner only, as Cloud
/// Tasks needs IAM.
///
/// - `POST …/tasks` `{"task": {"name"?, "scheduleTime"?, "dispatchDeadline"?, "httpRequest":
///   {"body", "headers"}}}` stores a task and answers it as Cloud Tasks does, with a `task`
///   member whose `name` starts with `/` (what firebase-admin's emulator mode reads).
/// - `DELETE …/tasks/{id}` answers `{}`; `GET …/tasks` lists, `GET …/tasks/{id}` gets one.
struct TaskQueueRoutes {
    let server: EmulatorServer

    func add(to router: Router<EmulatorRequestContext>) {
        for prefix in ["", "v2/"] {
            let group = server.ownerRoutes(RouterPath(prefix + "projects/:project/locations/:location/queues/:queue/tasks"),
                of: router)
            group.post { request, context in
                var request = request
                let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
                let (location, queue) = try queueAddress(context)
                let task = try await enqueue(body["task"], queue: queue, location: location)
                var answer = task.resource(project: server.emulator.project)
                if case .object(var fields) = answer {
                    fields["task"] = ["name": .string("/" + task.name(project: server.emulator.project))]
                    answer = .object(fields)
                }
                return Response.json(answer)
            }
            group.get { _, context in
                let (location, queue) = try queueAddress(context)
                let tasks = server.emulator.taskQueues.tasks(in: queue).filter { $0.location == location }
                return Response.json(["tasks": .array(tasks.map { $0.resource(project: server.emulator.project) })])
            }
            group.get(":id") { _, context in
                let (location, queue) = try queueAddress(context)
                guard let task = server.emulator.taskQueues.task(queue: queue, location: location,
                    id: context.parameters.get("id") ?? "")
                else { throw ServiceError(.notFound, "Requested entity was not found.") }
                return Response.json(task.resource(project: server.emulator.project))
            }
            group.delete(":id") { _, context in
                let (location, queue) = try queueAddress(context)
                try await server.emulator.taskQueues.delete(queue: queue, location: location,
                    id: context.parameters.get("id") ?? "")
                return Response.json([:])
            }
        }
    }

    /// The location and queue of the request's path, in this emulator's project.
    private func queueAddress(_ context: EmulatorRequestContext) throws -> (location: String, queue: String) {
        guard context.parameters.get("project") == server.emulator.project else {
            throw TaskQueueService.queueNotFound
        }
        return (context.parameters.get("location") ?? "", context.parameters.get("queue") ?? "")
    }

    /// Stores the `task` of a create request.
    private func enqueue(_ task: JSONValue?, queue: String, location: String) async throws -> QueuedTask {
        guard case .object? = task else { throw ServiceError(.invalidArgument, "The request has no task.") }
        let prefix = "projects/\(server.emulator.project)/locations/\(location)/queues/\(queue)/tasks/"
        var id: String?
        if let name = task?["name"]?.stringValue {
            guard name.hasPrefix(prefix) || name.hasPrefix("/" + prefix) else {
                throw ServiceError(.invalidArgument, "Task name '\(name)' is not in the queue \(prefix.dropLast(7)).")
            }
            id = String(name.dropFirst(name.hasPrefix("/") ? prefix.count + 1 : prefix.count))
        }
        let http = task?["httpRequest"]
        var body = Data()
        if let text = http?["body"]?.stringValue {
            guard let decoded = Data(base64Encoded: text) else {
                throw ServiceError(.invalidArgument, "httpRequest.body is not base64.")
            }
            body = decoded
        }
        var headers: [String: String] = [:]
        for (name, value) in http?["headers"]?.objectValue ?? [:] {
            guard let value = value.stringValue else {
                throw ServiceError(.invalidArgument, "httpRequest.headers.\(name) is not a string.")
            }
            headers[name] = value
        }
        var scheduleTime: Date?
        if let text = task?["scheduleTime"]?.stringValue {
            guard let time = RFC3339Timestamp.date(from: text) else {
                throw ServiceError(.invalidArgument, "scheduleTime '\(text)' is not an RFC 3339 timestamp.")
            }
            scheduleTime = time
        }
        var deadline: Duration?
        if let text = task?["dispatchDeadline"]?.stringValue {
            guard text.hasSuffix("s"), let seconds = Double(text.dropLast()), (15...1_800).contains(seconds) else {
                throw ServiceError(.invalidArgument,
                    "dispatchDeadline '\(text)' is not a duration from \"15s\" to \"1800s\".")
            }
            deadline = .seconds(seconds)
        }
        return try await server.emulator.taskQueues.enqueue(queue: queue, location: location, id: id, body: body,
            headers: headers, scheduleTime: scheduleTime, dispatchDeadline: deadline)
    }
}
