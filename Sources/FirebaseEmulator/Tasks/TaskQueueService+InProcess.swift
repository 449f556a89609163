import CloudFunctions
import Foundation
import Logging

extension TaskQueueService {
    /// The queues of a registry's task-queue functions, and their attempts handed to the
    /// functions in process (each as the request a worker would get).
    static func inProcess(
        _ functions: FunctionRegistry, project: String, admin: AdminClients, clock: any BusClock, logger: Logger
    ) -> (queues: [String: Queue], dispatch: Dispatch) {
        var queues: [String: Queue] = [:]
        var handlers: [String: CloudFunction] = [:]
        for (name, function) in functions.functions {
            guard case .taskQueue(let trigger) = function.trigger else { continue }
            queues[name] = Queue(trigger: trigger, location: function.options.deploymentRegion, timeout: function.options.timeout)
            handlers[name] = function
        }
        let tokens = EmulatorTokenVerifier(project: project, clock: clock)
        let found = handlers
        return (queues, { attempt in
            guard let function = found[attempt.queue] else { return Answer(status: nil, error: "the function is not deployed") }
            var fields = HTTPFields()
            for (name, value) in attempt.headers {
                if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
            }
            let context = RequestContext(functionName: attempt.queue,
                deadline: clock.now.addingTimeInterval(attempt.timeout.seconds), clock: clock, admin: admin,
                tokens: tokens, region: function.options.deploymentRegion,
                paramValues: ParamValues(for: function, named: attempt.queue), logger: logger)
            let response = await function.respond(to: HTTPSRequest(method: .post, target: "/", headerFields: fields,
                body: attempt.body), context: context)
            guard response.status.kind != .successful else { return Answer(status: response.status.code) }
            let body = String(decoding: ((try? await response.collectBody()) ?? Data()).prefix(300), as: UTF8.self)
            return Answer(status: response.status.code, error: "HTTP \(response.status.code)" + (body.isEmpty ? "" : ": " + body))
        })
    }
}
