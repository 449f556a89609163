import CloudEvents
import CloudFunctions
import Foundation

/// A task in one of the emulator's queues, as Cloud Tasks keeps it: what to send, when, and
/// what its attempts got so far.
public struct QueuedTask: Sendable, Hashable {
    /// Where a task is in its life.
    public enum State: String, Sendable, Hashable {
        /// Waiting for its schedule time, a dispatch slot, or a retry.
        case queued
        /// An attempt is running.
        case dispatching
        /// An attempt got a 2xx answer.
        case succeeded
        /// Its retries were spent without success.
        case failed
        /// Deleted before it succeeded.
        case deleted

        /// Whether the task is done with (its id stays taken for an hour).
        public var isFinished: Bool { self == .succeeded || self == .failed || self == .deleted }
    }

    /// The queue's id: the function's name.
    public var queue: String
    /// The queue's region.
    public var location: String
    /// The task's id.
    public var id: String
    /// The body each attempt sends.
    public var body: Data
    /// The headers each attempt sends, besides the `X-CloudTasks-*` ones.
    public var headers: [String: String]
    /// When the next attempt is due (moved on by each retry, as Cloud Tasks does).
    public var scheduleTime: Date
    /// When the task was created.
    public var createTime: Date
    /// How long an attempt waits for an answer; `nil` for the function's timeout.
    public var dispatchDeadline: Duration?
    /// The attempts made.
    public var dispatchCount = 0
    /// The attempts that got an answer other than a 5xx.
    public var responseCount = 0
    /// When the first attempt started.
    public var firstAttemptTime: Date?
    /// When the latest attempt started.
    public var lastAttemptTime: Date?
    /// The HTTP status the latest attempt got; `nil` before any, or when it got no answer.
    public var lastResponseStatus: Int?
    /// Why the latest attempt failed, in words.
    public var lastError: String?
    /// Where it is in its life.
    public var state: State = .queued
    /// When it succeeded, failed for good, or was deleted.
    public var finishTime: Date?

    /// Creates a queued task.
    public init(queue: String, location: String, id: String, body: Data, headers: [String: String], scheduleTime: Date,
        createTime: Date, dispatchDeadline: Duration?)
    {
        self.queue = queue
        self.location = location
        self.id = id
        self.body = body
        self.headers = headers
        self.scheduleTime = scheduleTime
        self.createTime = createTime
        self.dispatchDeadline = dispatchDeadline
    }

    /// `projects/{project}/locations/{location}/queues/{queue}/tasks/{id}`.
    public func name(project: String) -> String {
        "projects/\(project)/locations/\(location)/queues/\(queue)/tasks/\(id)"
    }

    /// The task as Cloud Tasks' REST API shows it (the `BASIC` view, with the body, as the
    /// emulator has no reason to hide it), plus `state` for the console.
    public func resource(project: String) -> JSONValue {
        func time(_ date: Date?) -> JSONValue { date.map { .string(RFC3339Timestamp.string(from: $0)) } ?? .null }
        var json: [String: JSONValue] = [
            "name": .string(name(project: project)),
            "httpRequest": [
                "httpMethod": "POST",
                "headers": .object(headers.mapValues(JSONValue.string)),
                "body": .string(body.base64EncodedString()),
            ],
            "scheduleTime": time(scheduleTime),
            "createTime": time(createTime),
            "dispatchCount": .number(Double(dispatchCount)),
            "responseCount": .number(Double(responseCount)),
            "view": "BASIC",
            "state": .string(state.rawValue),
        ]
        if let dispatchDeadline { json["dispatchDeadline"] = .string("\(dispatchDeadline.seconds)s") }
        if let lastAttemptTime {
            var attempt: [String: JSONValue] = ["dispatchTime": time(lastAttemptTime)]
            if let lastResponseStatus { attempt["responseStatus"] = ["code": .number(Double(lastResponseStatus))] }
            if let lastError { attempt["error"] = .string(lastError) }
            json["lastAttempt"] = .object(attempt)
        }
        if let firstAttemptTime { json["firstAttempt"] = ["dispatchTime": time(firstAttemptTime)] }
        if let finishTime { json["finishTime"] = time(finishTime) }
        return .object(json)
    }

    /// The headers of its next attempt: its own, and the `X-CloudTasks-*` ones Cloud Tasks adds.
    func attemptHeaders() -> [(String, String)] {
        let context = TaskContext(queueName: queue, id: id, retryCount: dispatchCount, executionCount: responseCount,
            scheduleTime: scheduleTime, previousResponse: lastResponseStatus, retryReason: lastError)
        return headers.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 } + context.dispatchHeaders.map { ($0.name, $0.value) }
    }
}
