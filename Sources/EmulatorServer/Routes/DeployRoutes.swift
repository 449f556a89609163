import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird
import Synchronization

/// Deployments: `POST /emulator/v1/projects/{p}/deployments` starts a functions binary and
/// routes events to it; `GET .../functions` lists what is deployed and the worker's state;
/// `POST .../functions/{name}:trigger` sends one event straight to a deployed function.
/// `GET .../schedules` lists the scheduled functions with their last and next firings.
struct DeployRoutes {
    let server: EmulatorServer

    func add(to router: Router<EmulatorRequestContext>) {
        let (group, owner) = server.emulatorProjectRoutes(of: router)
        // The owner's only, JSON only (a browser cannot send that across origins without asking
        // first), and only a binary that `swift build` made.
        owner.post("deployments") { request, context in
            guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
                throw ServiceError(.unsupportedMediaType,
                    "A deployment must be sent as Content-Type: application/json.")
            }
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            guard let path = body["binary"]?.stringValue, !path.isEmpty else {
                throw ServiceError(.invalidArgument, "binary is required: the path of the functions executable")
            }
            let binary = try Self.builtBinary(path)
            let manifest: FunctionsManifest
            do {
                manifest = try FunctionsManifest(json: (body["manifest"] ?? .null).serializedData())
            } catch {
                throw ServiceError(.invalidArgument, "manifest is not a v1alpha1 functions manifest: \(error)")
            }
            let only = body["only"]?.arrayValue?.compactMap(\.stringValue)
            let environment = try Self.strings(body["environment"], name: "environment")
            let secrets = try Self.strings(body["secrets"], name: "secrets")
            let debug = body["debug"]?.stringValue
            let deployment: DeploymentManager.Deployment
            do {
                // A client that leaves while the worker starts takes the start with it.
                let start = Task {
                    try await server.deployments.deploy(binary: binary, manifest: manifest, only: only,
                        environment: environment, secrets: secrets, debug: debug)
                }
                await context.onDisconnect { start.cancel() }
                deployment = try await withTaskCancellationHandler { try await start.value } onCancel: { start.cancel() }
            } catch let error as RegistryError {
                throw ServiceError(.invalidArgument, "\(error)")
            } catch let error as WorkerError {
                throw ServiceError(.failedPrecondition, "the functions worker did not start: \(error)")
            }
            return Response.json(try Self.describe(deployment, base: server.deployments.baseURL(), project: server.emulator.project))
        }
        // A package watcher's report of its last build, shown by the console.
        owner.put("build") { request, context in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            guard let state = body["state"]?.stringValue, ["building", "deployed", "failed"].contains(state) else {
                throw ServiceError(.invalidArgument, "state must be building, deployed or failed")
            }
            var build: [String: JSONValue] = ["state": .string(state),
                "time": .string(RFC3339Timestamp.string(from: Date()))]
            if let output = body["output"]?.stringValue { build["output"] = .string(String(output.prefix(64 * 1024))) }
            server.deployments.buildStatus.withLock { $0 = .object(build) }
            return Response.json(.object(build))
        }
        group.get("schedules") { _, _ in
            // Each scheduled function: its schedule, when it last fired here and when it fires next.
            let deployment = server.deployments.deployment
            let endpoints = (deployment?.manifest.endpoints ?? [:]).filter { deployment?.deployed.contains($0.key) == true }
            let now = server.emulator.clock.now
            var schedules: [JSONValue] = []
            for (name, endpoint) in endpoints.sorted(by: { $0.key < $1.key }) {
                guard let schedule = (try? endpoint.trigger())?.schedule else { continue }
                let last = try server.emulator.lastFiring(of: schedule)
                schedules.append([
                    "function": .string(name), "schedule": .string(schedule.expression),
                    "timeZone": .string(schedule.timeZoneIdentifier),
                    "lastFiring": last.map { .string(RFC3339Timestamp.string(from: $0)) } ?? .null,
                    "nextFiring": schedule.nextFiring(after: now).map { .string(RFC3339Timestamp.string(from: $0)) } ?? .null,
                ])
            }
            return Response.json(["schedules": .array(schedules)])
        }
        group.get("functions") { _, _ in
            let build = server.deployments.buildStatus.withLock { $0 } ?? .null
            guard let deployment = server.deployments.deployment else {
                return Response.json(["endpoints": [:], "worker": .null, "build": build])
            }
            var answer = try Self.describe(deployment, base: server.deployments.baseURL(), project: server.emulator.project)
                .objectValue ?? [:]
            answer["build"] = build
            return Response.json(.object(answer))
        }
        owner.post("functions/:call") { request, context in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            return Response.json(try await trigger(try context.parameters.require("call"), body: body))
        }
    }

    /// A JSON object of strings whose keys may name a function's environment variable.
    static func strings(_ value: JSONValue?, name: String) throws(ServiceError) -> [String: String] {
        guard let value, !value.isNull else { return [:] }
        guard let object = value.objectValue else { throw ServiceError(.invalidArgument, "\(name) must be an object of strings") }
        var strings: [String: String] = [:]
        for (key, item) in object {
            guard let text = item.stringValue else { throw ServiceError(.invalidArgument, "\(name).\(key) must be a string") }
            if let problem = ParamSpec.problem(withKey: key) { throw ServiceError(.invalidArgument, "\(name): \(problem)") }
            strings[key] = text
        }
        return strings
    }

    /// The binary at `path`, when it is an executable that a Swift package build made: it lies
    /// inside a build folder (`.build`, or any `--scratch-path`), which SwiftPM marks with a
    /// `workspace-state.json`. Anything else on the machine is refused, so that the route cannot
    /// be used to start an arbitrary program.
    static func builtBinary(_ path: String) throws(ServiceError) -> URL {
        guard path.hasPrefix("/") else { throw ServiceError(.invalidArgument, "binary must be an absolute path") }
        let binary = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: binary.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isExecutableFile(atPath: binary.path)
        else { throw ServiceError(.invalidArgument, "binary '\(path)' is not an executable file") }
        var folder = binary.deletingLastPathComponent()
        while folder.path != "/" {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("workspace-state.json").path) {
                return binary
            }
            folder = folder.deletingLastPathComponent()
        }
        throw ServiceError(.invalidArgument, 
            "binary '\(path)' is not inside a Swift package's build folder: deploy what `functions deploy` builds")
    }

    /// Invokes a deployed function once with a stored event (`{"eventId"}`) or a hand-written
    /// one (`{"event": {...}}`: a whole CloudEvent, or only some attributes and `data`, the rest
    /// taken from the function's trigger). No retries: the answer says how that one attempt went.
    func trigger(_ call: String, body: JSONValue) async throws -> JSONValue {
        guard call.hasSuffix(":trigger") else { throw ServiceError(.notFound, "no route for functions/\(call)") }
        let name = String(call.dropLast(":trigger".count))
        if let trigger = server.deployments.deployment?.requests[name] {
            throw ServiceError(.invalidArgument, "'\(name)' answers \(trigger.summary) requests, not events: "
                + "call it at /\(server.emulator.project)/{region}/\(name)")
        }
        guard let deployment = server.deployments.deployment, deployment.deployed.contains(name),
            let endpoint = deployment.manifest.endpoints[name], let pool = deployment.functions[name]
        else {
            throw ServiceError(.notFound, "no deployed function named '\(name)'")
        }
        let event: CloudEvent
        if let id = body["eventId"]?.stringValue {
            guard let stored = try server.emulator.store.storedEvent(id: id) else {
                throw ServiceError(.notFound, "no event with id '\(id)' in the event log")
            }
            event = stored
        } else if let given = body["event"]?.objectValue {
            event = try Self.event(from: given, for: endpoint, project: server.emulator.project)
        } else {
            throw ServiceError(.invalidArgument, 
                "give eventId (an event of the event log) or event (a CloudEvent, or its data and attributes)"
            )
        }
        let timeout = Double(endpoint.timeoutSeconds ?? 60)
        var answer: [String: JSONValue] = [
            "function": .string(name), "eventId": .string(event.id), "type": .string(event.type),
        ]
        do {
            let clock = server.emulator.clock
            if let reason = try await HTTPDelivery.deliverInSpan(event, to: name, attempt: 1,
                deadline: clock.now + timeout, clock: clock, via: pool, tracer: server.tracer,
                metrics: server.metrics.delivery(of: name))
            {
                answer["status"] = "skipped"
                answer["reason"] = .string(reason)
            } else {
                answer["status"] = "succeeded"
            }
        } catch {
            answer["status"] = "failed"
            answer["error"] = .string("\(error)")
        }
        return .object(answer)
    }

    /// A hand-written event: the given attributes, and for those missing a new id, the time
    /// now, the function's event type, a source of the project, the trigger's exact filters, and
    /// for a database trigger the `ref` its subject names (`refs/scores/s1`) and the default
    /// instance.
    static func event(from given: [String: JSONValue], for endpoint: ManifestEndpoint, project: String) throws
        -> CloudEvent
    {
        var object = given
        object["specversion"] = object["specversion"] ?? "1.0"
        object["id"] = object["id"] ?? .string(UUID().uuidString.lowercased())
        object["time"] = object["time"] ?? .string(RFC3339Timestamp.string(from: Date()))
        // The trigger in CloudEvents terms: a schedule's is the type and attributes of its firings.
        let trigger = try? endpoint.trigger()
        if object["type"] == nil, let type = trigger?.eventType { object["type"] = .string(type) }
        for (attribute, value) in trigger?.filters ?? [:] where object[attribute] == nil {
            object[attribute] = .string(value)
        }
        if let patterns = endpoint.eventTrigger?.eventFilterPathPatterns {
            if patterns["ref"] != nil, object["ref"] == nil, let subject = object["subject"]?.stringValue,
                subject.hasPrefix("refs/")
            {
                object["ref"] = .string(String(subject.dropFirst("refs/".count)))
            }
            if patterns["instance"] != nil, object["instance"] == nil {
                object["instance"] = .string("\(project)-default-rtdb")
            }
        }
        object["source"] = object["source"] ?? .string("//firebase.googleapis.com/projects/\(project)")
        if object["data"] != nil, object["datacontenttype"] == nil { object["datacontenttype"] = "application/json" }
        do {
            return try CloudEvent(jsonFormat: JSONValue.object(object).serializedData())
        } catch {
            throw ServiceError(.invalidArgument, "event is not a valid CloudEvent: \(error)")
        }
    }

    /// The deployment as the routes answer it: the endpoints, and per function its instances
    /// (worker processes) with their state, address and load.
    static func describe(_ deployment: DeploymentManager.Deployment, base: URL?, project: String) throws -> JSONValue {
        var functions: [String: JSONValue] = [:]
        for (name, pool) in deployment.functions where deployment.deployed.contains(name) {
            let instances: [JSONValue] = pool.load.map { supervisor, inFlight in
                let worker = supervisor.status
                return [
                    "status": .string(worker.status.rawValue),
                    "restarts": .number(Double(worker.restarts)),
                    "url": worker.url.map { .string($0.absoluteString) } ?? .null,
                    "pid": supervisor.processIdentifier.map { .number(Double($0)) } ?? .null,
                    "inFlight": .number(Double(inFlight)),
                ]
            }
            var function: [String: JSONValue] = [
                "debugging": .bool(deployment.debugging == name),
                "instances": .array(instances),
                "minInstances": .number(Double(pool.minimum)),
                "maxInstances": .number(Double(pool.maximum)),
                "concurrency": .number(Double(pool.concurrency)),
            ]
            if let trigger = deployment.requests[name] {
                function["kind"] = .string(trigger.summary)
                // Where clients call it; Authentication calls blocking functions, queues task-queue ones.
                switch trigger {
                case .https, .callable:
                    if let base { function["url"] = .string(deployment.url(of: name, base: base, project: project)) }
                default:
                    break
                }
            }
            functions[name] = .object(function)
        }
        return [
            "endpoints": try JSONValue(encoding: deployment.manifest.endpoints.filter {
                deployment.deployed.contains($0.key) || deployment.skipped.contains($0.key)
            }),
            "skipped": .array(deployment.skipped.map(JSONValue.string)),
            "deployTime": .string(RFC3339Timestamp.string(from: deployment.time)),
            "binary": .string(deployment.binary.path),
            "functions": .object(functions),
            "params": .array(params(of: deployment)),
        ]
    }

    /// The deployment's params with their values, then the other `.env` variables; a secret's
    /// value is masked.
    static func params(of deployment: DeploymentManager.Deployment) -> [JSONValue] {
        var params: [JSONValue] = []
        for param in deployment.manifest.params {
            let value: JSONValue = param.type == .secret
                ? (deployment.secretNames.contains(param.name) ? .string(maskedSecret) : .null)
                : deployment.environment[param.name].map(JSONValue.string) ?? .null
            params.append(["name": .string(param.name), "type": .string(param.type.rawValue), "value": value])
        }
        let declared = Set(deployment.manifest.params.map(\.name))
        for (name, value) in deployment.environment.sorted(by: { $0.key < $1.key }) where !declared.contains(name) {
            params.append(["name": .string(name), "type": "env", "value": .string(value)])
        }
        return params
    }

    /// What is shown for a secret's value.
    static let maskedSecret = "********"
}
