import CloudFunctions
import Foundation
import Logging

/// The blocking functions Authentication calls, and waits for, before a client's sign-up is
/// saved and before a client gets tokens: at most one per event, as in production.
///
/// Each call is the wire protocol of the real service: a `POST` of `{"data": {"jwt": …}}`
/// whose (unsigned, as in the Firebase emulator) JWT describes the user and the request. The
/// emulator server calls the worker process over HTTP; an in-process deployment calls the
/// handler directly, through the same bytes.
public struct BlockingFunctions: Sendable {
    /// One deployed blocking function.
    public struct Endpoint: Sendable {
        /// The function's name.
        public var name: String
        /// Where it is called, as error messages name it.
        public var url: String
        /// The JWT's audience: the function's production URL, `https://{region}-{project}.cloudfunctions.net/{name}`.
        public var audience: String
        /// How long Authentication waits for its answer.
        public var timeout: Duration

        /// Creates an endpoint.
        public init(name: String, url: String, audience: String, timeout: Duration) {
            self.name = name
            self.url = url
            self.audience = audience
            self.timeout = timeout
        }
    }

    /// Sends a request body to an endpoint and returns the HTTP status and body of its answer.
    public typealias Call = @Sendable (_ endpoint: Endpoint, _ body: Data) async throws -> (status: Int, body: Data)

    /// The function for each event.
    public var endpoints: [BlockingTrigger.BlockingEvent: Endpoint]
    let call: Call

    /// Creates the set.
    public init(endpoints: [BlockingTrigger.BlockingEvent: Endpoint], call: @escaping Call) {
        self.endpoints = endpoints
        self.call = call
    }

    /// The blocking functions of a registry, called in process with `admin` clients.
    static func inProcess(
        _ functions: FunctionRegistry,
        project: String,
        admin: AdminClients,
        clock: any BusClock,
        logger: Logger
    ) -> BlockingFunctions {
        var endpoints: [BlockingTrigger.BlockingEvent: Endpoint] = [:]
        var handlers: [String: CloudFunction] = [:]
        for (name, function) in functions.functions {
            guard case .blocking(let trigger) = function.trigger, endpoints[trigger.event] == nil else { continue }
            let url = BlockingProtocol.audience(project: project, region: function.options.deploymentRegion, function: name)
            endpoints[trigger.event] = Endpoint(name: name, url: url, audience: url, timeout: function.options.timeout)
            handlers[name] = function
        }
        let tokens = EmulatorTokenVerifier(project: project, clock: clock)
        let functions = handlers
        return BlockingFunctions(endpoints: endpoints) { endpoint, body in
            guard let function = functions[endpoint.name] else { return (404, Data()) }
            let request = HTTPSRequest(method: .post, headerFields: [.contentType: "application/json"], body: body)
            // Authentication enforces the timeout, on the emulator's clock.
            let context = RequestContext(functionName: endpoint.name, clock: clock, admin: admin, tokens: tokens,
                region: function.options.deploymentRegion,
                paramValues: ParamValues(for: function, named: endpoint.name), logger: logger)
            let response = await function.respond(to: request, context: context)
            return (response.status.code, try await response.collectBody())
        }
    }
}
