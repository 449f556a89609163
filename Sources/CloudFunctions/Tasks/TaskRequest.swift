/// One dispatch of a task to an `onDispatch` handler: the task's data, decoded into the
/// handler's type, and what the queue says of the task.
public struct TaskRequest<Payload: Sendable>: Sendable {
    /// The task's `data`.
    public var data: Payload
    /// The queue's account of the task: its id, retry count, schedule time…
    public var task: TaskContext
    /// The HTTP request as it arrived.
    public var rawRequest: HTTPSRequest
    /// The function's context: logger, Admin clients, deadline.
    public var context: RequestContext

    /// Creates a request.
    public init(data: Payload, task: TaskContext, rawRequest: HTTPSRequest = HTTPSRequest(), context: RequestContext) {
        self.data = data
        self.task = task
        self.rawRequest = rawRequest
        self.context = context
    }
}
