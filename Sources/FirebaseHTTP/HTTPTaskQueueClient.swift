import CloudEvents
import CloudFunctions
import Foundation

/// `context.admin.tasks` for a functions binary: Cloud Tasks' `tasks.create` and `tasks.delete`,
/// of Google (`{base}/v2/projects/…`) or of an emulator (`{base}/projects/…`, as firebase-admin
/// calls one at `CLOUD_TASKS_EMULATOR_HOST`).
///
/// Deployed, a task names no target of its own: the queue's HTTP override (which the deploy
/// targets set) sends it to the function's service with an OIDC token; the emulator sends it to
/// the deployed function.
public struct HTTPTaskQueueClient: TaskQueueClient {
    /// Google's Cloud Tasks API.
    public static let productionBaseURL = URL(string: "https://cloudtasks.googleapis.com")!

    let baseURL: URL
    let credentials: any AdminCredentials
    /// `/v2` for Google, empty for an emulator.
    let versionPrefix: String

    /// A client of Google's Cloud Tasks (or of a stand-in at `baseURL`) acting as `credentials`.
    public init(baseURL: URL, credentials: any AdminCredentials) {
        self.baseURL = baseURL
        self.credentials = credentials
        versionPrefix = "/v2"
    }

    /// A client of the Cloud Tasks emulator at `emulator`.
    public init(emulator: URL, project: String) {
        baseURL = emulator
        credentials = FixedCredentials(project: project)
        versionPrefix = ""
    }

    public func enqueue(_ task: TaskToEnqueue, to function: String) async throws -> String {
        if let problem = task.problem { throw TaskQueueError("INVALID_ARGUMENT", problem) }
        let address = try TaskQueueAddress(function: function)
        let project = try await credentials.projectID()
        let queue = queuePath(address, project: project)
        var body: [String: JSONValue] = [
            "httpRequest": [
                // Deployed, Cloud Tasks wants a URL, which the queue's override replaces with the
                // service's (firebase-admin's form); the emulator dispatches to the function.
                "url": .string(versionPrefix.isEmpty ? "" : "https://\(address.location)-\(project).cloudfunctions.net/\(address.queue)"),
                "httpMethod": "POST",
                "headers": .object(task.requestHeaders.mapValues(JSONValue.string)),
                "body": .string(task.body.base64EncodedString()),
            ],
        ]
        if let id = task.id { body["name"] = .string("\(queue)/tasks/\(id)") }
        // As firebase-admin does: a delay becomes a time on this machine's clock.
        if let time = task.scheduleTime(now: Date()) { body["scheduleTime"] = .string(RFC3339Timestamp.string(from: time)) }
        if let deadline = task.dispatchDeadline { body["dispatchDeadline"] = .string("\(Int(deadline.seconds))s") }
        let answer = try await send("POST", versionPrefix + "/" + queue + "/tasks", json: ["task": .object(body)])
        // Google answers the task; an emulator may answer {"task": {"name": "/projects/…"}}.
        let json = try answer.json()
        guard let name = json["name"]?.stringValue ?? json["task"]?["name"]?.stringValue,
            let id = name.split(separator: "/").last
        else { throw TaskQueueError("INTERNAL", "Cloud Tasks answered no task name") }
        return String(id)
    }

    public func delete(_ id: String, from function: String) async throws {
        guard !id.isEmpty, id.utf8.allSatisfy(TaskToEnqueue.isIDByte) else {
            throw TaskQueueError("INVALID_ARGUMENT", "'\(id)' is not a task id")
        }
        let queue = queuePath(try TaskQueueAddress(function: function), project: try await credentials.projectID())
        try await send("DELETE", versionPrefix + "/" + queue + "/tasks/" + id)
    }

    /// `projects/{p}/locations/{l}/queues/{q}` of a function's queue.
    private func queuePath(_ address: TaskQueueAddress, project: String) -> String {
        func segment(_ text: String) -> String { AdminHTTP.percentEncoded(text, keeping: AdminHTTP.segmentCharacters) }
        return "projects/\(segment(project))/locations/\(segment(address.location))/queues/" + segment(address.queue)
    }

    /// Sends a request; a refusal throws ``TaskQueueError`` with Cloud Tasks' status.
    @discardableResult
    private func send(_ method: String, _ path: String, json: JSONValue? = nil) async throws -> AdminHTTP.Answer {
        do {
            return try await AdminHTTP(baseURL: baseURL, credentials: credentials).send(method, path, json: json)
        } catch let error as AdminHTTPError where error.status >= 400 {
            let status = error.answer.flatMap { try? $0.json()["error"]?["status"]?.stringValue }
                ?? Self.status(forHTTP: error.status)
            throw TaskQueueError(status, error.message)
        }
    }

    /// The Google status an HTTP status stands for, when the body names none.
    static func status(forHTTP code: Int) -> String {
        switch code {
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 409: "ALREADY_EXISTS"
        case 429: "RESOURCE_EXHAUSTED"
        case 503: "UNAVAILABLE"
        default: "UNKNOWN"
        }
    }
}
