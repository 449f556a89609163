import Foundation

/// A task queue to run a function on; finish with ``onDispatch(_:)``.
public struct TaskQueue: Sendable {
    let trigger: TaskQueueTrigger
    let functionOptions: FunctionOptions

    init(trigger: TaskQueueTrigger, options: FunctionOptions) {
        self.trigger = trigger
        self.functionOptions = options
    }

    /// The same queue with other options changed (timeout, region, memory, concurrency…); a
    /// timeout may be up to 30 minutes, the longest Cloud Tasks waits for an answer.
    public func options(_ changes: FunctionOption...) -> TaskQueue {
        TaskQueue(trigger: trigger, options: functionOptions.with(changes))
    }

    /// Runs `handler` for each task dispatched: the task's `data` decoded into `Payload`.
    ///
    /// The queue counts the attempt done when the handler returns (the answer is 204). A
    /// thrown ``CallableError`` answers with its status and error body, anything else with
    /// 500 `INTERNAL`, a body that is not `{"data": …}` or does not fit `Payload` with 400;
    /// the queue retries all of them as its ``TaskRetryConfig`` says.
    public func onDispatch<Payload: Decodable & Sendable>(
        _ handler: @escaping @Sendable (TaskRequest<Payload>) async throws -> Void
    ) -> CloudFunction {
        CloudFunction(trigger: .taskQueue(trigger), options: functionOptions, problems: trigger.problems,
            handler: .request { request, context in
                let task = TaskContext(headerFields: request.headerFields)
                do {
                    let data: Payload = try Self.payload(of: request)
                    try await CallableProtocol.withDeadline(context) {
                        try await handler(TaskRequest(data: data, task: task, rawRequest: request, context: context))
                    }
                    return HTTPSResponse(status: .noContent)
                } catch let error as CallableError {
                    context.logger.warning("task failed", metadata: [
                        "task": "\(task.id)", "retryCount": "\(task.retryCount)", "error": "\(error)",
                    ])
                    return .error(error)
                } catch {
                    return .error(CallableProtocol.visible(error, context: context))
                }
            })
    }

    /// The `data` of a task's body, as firebase-functions reads it: a JSON object with `data`
    /// and nothing else.
    static func payload<Payload: Decodable>(of request: HTTPSRequest) throws(CallableError) -> Payload {
        let badRequest = CallableError(.invalidArgument, "Bad Request")
        guard request.method == .post, request.mediaType == "application/json",
            case .object(let body)? = try? JSONValue(parsing: request.body), let data = body["data"], body.count == 1
        else { throw badRequest }
        do {
            return try data.decode(as: Payload.self)
        } catch {
            throw CallableError(.invalidArgument, "the data does not fit \(Payload.self): \(CallableProtocol.describe(error))")
        }
    }
}
