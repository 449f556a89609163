import Foundation
import HTTPTypes

/// What the queue says of a task as it dispatches it (the `X-CloudTasks-*` headers).
public struct TaskContext: Sendable, Hashable {
    /// The queue's id: the function's name.
    public var queueName: String
    /// The task's id, the last part of its name.
    public var id: String
    /// The attempts before this one (0 for the first).
    public var retryCount: Int
    /// The attempts that got an answer other than a 5xx.
    public var executionCount: Int
    /// When the task was scheduled to run.
    public var scheduleTime: Date?
    /// The HTTP status the previous attempt got, if any.
    public var previousResponse: Int?
    /// Why the task is being retried, if it is.
    public var retryReason: String?
    /// Every header of the request, by lowercased name: those the enqueuer set among them.
    public var headers: [String: String]

    /// Creates a context.
    public init(
        queueName: String, id: String, retryCount: Int = 0, executionCount: Int = 0, scheduleTime: Date? = nil,
        previousResponse: Int? = nil, retryReason: String? = nil, headers: [String: String] = [:]
    ) {
        self.queueName = queueName
        self.id = id
        self.retryCount = retryCount
        self.executionCount = executionCount
        self.scheduleTime = scheduleTime
        self.previousResponse = previousResponse
        self.retryReason = retryReason
        self.headers = headers
    }

    /// The `X-CloudTasks-*` headers a queue sends for this context (the previous response and
    /// retry reason on retries only).
    public var dispatchHeaders: [(name: String, value: String)] {
        var fields = [
            (Tasks.queueNameHeader, queueName),
            (Tasks.taskNameHeader, id),
            (Tasks.retryCountHeader, String(retryCount)),
            (Tasks.executionCountHeader, String(executionCount)),
        ]
        if let scheduleTime { fields.append((Tasks.etaHeader, String(format: "%.6f", scheduleTime.timeIntervalSince1970))) }
        if retryCount > 0 {
            if let previousResponse { fields.append((Tasks.previousResponseHeader, String(previousResponse))) }
            if let retryReason { fields.append((Tasks.retryReasonHeader, retryReason)) }
        }
        return fields
    }

    /// The context a dispatch's headers carry.
    init(headerFields: HTTPFields) {
        var headers: [String: String] = [:]
        for field in headerFields { headers[field.name.canonicalName] = field.value }
        func value(_ name: String) -> String? { headers[name.lowercased()] }
        self.init(
            queueName: value(Tasks.queueNameHeader) ?? "",
            id: value(Tasks.taskNameHeader) ?? "",
            retryCount: value(Tasks.retryCountHeader).flatMap { Int($0) } ?? 0,
            executionCount: value(Tasks.executionCountHeader).flatMap { Int($0) } ?? 0,
            scheduleTime: value(Tasks.etaHeader).flatMap { Double($0) }.map { Date(timeIntervalSince1970: $0) },
            previousResponse: value(Tasks.previousResponseHeader).flatMap { Int($0) },
            retryReason: value(Tasks.retryReasonHeader),
            headers: headers
        )
    }
}
