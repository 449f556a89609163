import CloudFunctions
import Foundation

/// One function of a manifest as a container platform runs it: a service of its own (the
/// package's image with `FUNCTION_TARGET` set) and, for an event function, a trigger; HTTPS,
/// callable, blocking and task-queue functions are HTTP services without one.
struct DeployableFunction {
    /// The function's name: its `FUNCTION_TARGET`.
    let name: String
    /// The name of its service (and trigger) on the platform: the name in lowercase.
    let serviceName: String
    /// The options the function asks for.
    let options: FunctionOptions
    /// The secrets the function is given.
    let secrets: [ManifestEndpoint.SecretEnvironmentVariable]
    /// What makes it run (an event trigger with a 1st-gen type mapped to its CloudEvent type).
    let kind: FunctionTrigger
    /// The event trigger, `nil` for request functions.
    var trigger: EventTrigger? { kind.eventTrigger }
    /// The queue of a task-queue function.
    var taskQueue: TaskQueueTrigger? {
        if case .taskQueue(let queue) = kind { return queue }
        return nil
    }

    /// The regions Realtime Database instances live in, where their triggers must be.
    static let databaseRegions = ["us-central1", "europe-west1", "asia-southeast1"]

    /// The region the function runs in.
    var region: String { options.deploymentRegion }

    /// Reads one endpoint of a manifest.
    ///
    /// - Throws: ``CLIError`` when the name cannot be a service name or the options are invalid.
    init(name: String, endpoint: ManifestEndpoint) throws {
        self.name = name
        serviceName = name.lowercased()
        guard Self.isServiceName(serviceName) else {
            throw CLIError("function '\(name)' cannot be deployed as a service named '\(serviceName)': service names "
                + "have 1 to 49 lowercase letters, digits and hyphens, start with a letter and do not end with a hyphen")
        }
        options = endpoint.functionOptions
        secrets = endpoint.secretEnvironmentVariables
        let found: FunctionTrigger?
        do {
            found = try endpoint.functionTrigger()
        } catch {
            throw CLIError("function '\(name)': \(error)")
        }
        guard let found else {
            let kinds = endpoint.otherTriggers.keys.sorted().joined(separator: ", ")
            throw CLIError("function '\(name)' has a trigger this runtime does not deploy (\(kinds.isEmpty ? "none" : kinds)); "
                + "leave it out with --only")
        }
        kind = found
        if case .taskQueue(let queue) = found, let problem = queue.problems.first {
            throw CLIError("function '\(name)': \(problem)")
        }
        if let problem = options.problems(maximumTimeout: found.maximumTimeout).first {
            throw CLIError("function '\(name)': \(problem)")
        }
    }

    /// Whether anyone may invoke the service without credentials: HTTPS and callable functions
    /// unless their invoker names accounts (as Firebase deploys them), blocking functions (which
    /// check the JWT Identity Platform sends); never event or task-queue functions (only the
    /// broker or the queue calls them).
    var isPublic: Bool {
        switch kind {
        case .event, .taskQueue: false
        case .https, .callable: invoker.map { $0.contains("public") } ?? true
        case .blocking: true
        }
    }

    /// The accounts that may invoke a private HTTPS, callable or task-queue function
    /// (`serviceAccount:…`, `user:…`), besides the platform's.
    var invokers: [String] { invoker?.filter { $0 != "public" && $0 != "private" } ?? [] }

    /// The `invoker` option of an HTTPS, callable or task-queue function.
    private var invoker: [String]? {
        switch kind {
        case .https(let trigger): trigger.invoker
        case .callable(let trigger): trigger.invoker
        case .taskQueue(let trigger): trigger.invoker
        default: nil
        }
    }

    /// The Functions Framework signature the container serves.
    var signatureType: String { trigger == nil ? "http" : "cloudevent" }

    /// The functions of a manifest (those named in `only`, when given), refusing names that
    /// collide once lowercased.
    static func all(in manifest: FunctionsManifest, only: [String]?) throws -> [DeployableFunction] {
        var endpoints = manifest.endpoints
        if let only {
            for name in only where endpoints[name] == nil {
                throw CLIError("--only names '\(name)', which is not a function of the package; it has: "
                    + manifest.endpoints.keys.sorted().joined(separator: ", "))
            }
            endpoints = endpoints.filter { only.contains($0.key) }
        }
        let functions = try endpoints.sorted { $0.key < $1.key }.map { try DeployableFunction(name: $0.key, endpoint: $0.value) }
        var seen: [String: String] = [:]
        for function in functions {
            if let other = seen.updateValue(function.name, forKey: function.serviceName) {
                throw CLIError("functions '\(other)' and '\(function.name)' would both be the service '\(function.serviceName)'")
            }
        }
        guard !functions.isEmpty else { throw CLIError("the package has no functions to deploy") }
        return functions
    }

    /// Whether `text` is a valid Cloud Run service name (also a valid Knative one).
    static func isServiceName(_ text: String) -> Bool {
        guard let first = text.first, let last = text.last, (1...49).contains(text.count) else { return false }
        return first.isASCII && first.isLowercase && last != "-"
            && text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
    }
}

extension Duration {
    /// The shortest decimal spelling of the duration in seconds: `10`, `0.2`.
    var secondsText: String {
        let value = seconds
        return value == value.rounded() ? String(Int64(value)) : String(value)
    }
}
