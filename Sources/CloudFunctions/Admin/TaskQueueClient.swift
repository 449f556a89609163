import Foundation

/// Enqueuing tasks to task-queue functions (``Tasks``) from a handler, as firebase-admin's
/// `getFunctions().taskQueue(…)` does: through Cloud Tasks where deployed, through the
/// emulator's Cloud Tasks API locally.
public protocol TaskQueueClient: Sendable {
    /// Adds `task` to the queue of the task-queue function `function`: its name, or
    /// `locations/{region}/functions/{name}` when it is not in `us-central1`.
    ///
    /// - Returns: the task's id.
    /// - Throws: ``TaskQueueError`` `ALREADY_EXISTS` when the task's id is in use (or was, within
    ///   the hour), `NOT_FOUND` when no such queue is deployed.
    func enqueue(_ task: TaskToEnqueue, to function: String) async throws -> String

    /// Deletes the task `id` from the queue of `function`, if it has not run.
    ///
    /// - Throws: ``TaskQueueError`` `NOT_FOUND` when there is no such task (any more).
    func delete(_ id: String, from function: String) async throws
}

extension TaskQueueClient {
    /// Enqueues `data` (sent as the task's `data`) to `function`'s queue.
    ///
    /// - Parameters:
    ///   - id: the task's id (`[A-Za-z0-9_-]`, up to 500): a second task with the same id is
    ///     refused, which makes enqueuing idempotent; `nil` lets the queue choose one.
    ///   - delay: how long to wait before the task runs; `scheduleTime` instead names the moment.
    ///   - dispatchDeadline: how long the queue waits for an answer, 15 s to 30 minutes.
    /// - Returns: the task's id.
    @discardableResult
    public func enqueue(
        _ data: some Encodable, to function: String, id: String? = nil, delay: Duration? = nil,
        scheduleTime: Date? = nil, dispatchDeadline: Duration? = nil, headers: [String: String] = [:]
    ) async throws -> String {
        try await enqueue(TaskToEnqueue(data: try JSONValue(encoding: data), id: id, scheduleTime: scheduleTime,
            delay: delay, dispatchDeadline: dispatchDeadline, headers: headers), to: function)
    }
}

/// A task to enqueue: its data and when and how it should run.
public struct TaskToEnqueue: Sendable, Hashable {
    /// The task's `data`.
    public var data: JSONValue
    /// The task's id; `nil` lets the queue choose one.
    public var id: String?
    /// When the task should run; `nil` for now.
    public var scheduleTime: Date?
    /// How long after its enqueuing the task should run, when ``scheduleTime`` is `nil`: counted
    /// on the clock of the queue's side (the emulator's, in process).
    public var delay: Duration?
    /// How long the queue waits for an answer; `nil` for the queue's default.
    public var dispatchDeadline: Duration?
    /// Headers sent with the task, besides `Content-Type`.
    public var headers: [String: String]

    /// Creates a task.
    public init(data: JSONValue, id: String? = nil, scheduleTime: Date? = nil, delay: Duration? = nil,
        dispatchDeadline: Duration? = nil, headers: [String: String] = [:])
    {
        self.data = data
        self.id = id
        self.scheduleTime = scheduleTime
        self.delay = delay
        self.dispatchDeadline = dispatchDeadline
        self.headers = headers
    }

    /// When the task should run, for a client whose clock reads `now`; `nil` for now.
    public func scheduleTime(now: Date) -> Date? {
        scheduleTime ?? delay.map { now.addingTimeInterval($0.seconds) }
    }

    /// The headers the function gets: ``headers`` with `Content-Type: application/json`.
    public var requestHeaders: [String: String] {
        var fields = headers.filter { $0.key.lowercased() != "content-type" }
        fields["Content-Type"] = "application/json"
        return fields
    }

    /// The body the function gets: `{"data": …}`.
    public var body: Data { JSONValue.object(["data": data]).serializedData() }

    /// Why Cloud Tasks would refuse the task, in words; `nil` when it is fine.
    public var problem: String? {
        if let id, id.isEmpty || id.utf8.count > 500 || !id.utf8.allSatisfy(TaskToEnqueue.isIDByte) {
            return "a task id is 1 to 500 letters, digits, '-' or '_', not '\(id)'"
        }
        if let dispatchDeadline, !(Duration.seconds(15)...Duration.seconds(1_800)).contains(dispatchDeadline) {
            return "dispatchDeadline must be from 15 seconds to 30 minutes, not \(dispatchDeadline)"
        }
        return nil
    }

    /// Whether `byte` may be in a task id.
    package static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}

/// Where a task-queue function's queue is: its region and name, from `name`,
/// `locations/{region}/functions/{name}` or `projects/{p}/locations/{region}/functions/{name}`.
public struct TaskQueueAddress: Sendable, Hashable {
    /// The region, `us-central1` unless named.
    public var location: String
    /// The queue's id: the function's name.
    public var queue: String

    /// Reads a function's name as firebase-admin does.
    ///
    /// - Throws: ``TaskQueueError`` `INVALID_ARGUMENT` for another form.
    public init(function: String) throws(TaskQueueError) {
        let parts = function.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch parts.count {
        case 1: (location, queue) = ("us-central1", parts[0])
        case 4 where parts[0] == "locations" && parts[2] == "functions": (location, queue) = (parts[1], parts[3])
        case 6 where parts[0] == "projects" && parts[2] == "locations" && parts[4] == "functions":
            (location, queue) = (parts[3], parts[5])
        default:
            throw TaskQueueError("INVALID_ARGUMENT", "'\(function)' is not a function name, nor locations/{region}/functions/{name}")
        }
        guard !location.isEmpty, !queue.isEmpty else {
            throw TaskQueueError("INVALID_ARGUMENT", "'\(function)' names no function")
        }
    }
}

/// Enqueuing or deleting a task failed: Cloud Tasks' status (`ALREADY_EXISTS`, `NOT_FOUND`,
/// `INVALID_ARGUMENT`…) and message.
public struct TaskQueueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Google canonical status.
    public var status: String
    /// The service's message.
    public var message: String

    /// Creates an error.
    public init(_ status: String, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status): \(message)" }
}

/// The task-queue client of a runtime without a Cloud Tasks backend: every call fails.
public struct UnavailableTaskQueue: TaskQueueClient {
    let error: AdminClientError

    /// Creates the client; its errors say `remedy` when given.
    public init(remedy: String? = nil) {
        error = AdminClientError(service: "tasks", remedy: remedy)
    }

    public func enqueue(_ task: TaskToEnqueue, to function: String) async throws -> String { throw error }
    public func delete(_ id: String, from function: String) async throws { throw error }
}
