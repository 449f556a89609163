import CloudFunctions
import Foundation

/// Writes what deploys a functions package to Knative: per function a Serving `Service`
/// (serving.knative.dev/v1) running the package's image with `FUNCTION_TARGET` set, and an
/// Eventing `Trigger` (eventing.knative.dev/v1) on a broker.
///
/// The Trigger filters on exact attributes: the type and the trigger's exact filters (a
/// database's `instance`; not its `source`, which also names the database's region, and the
/// function's region need not be that one on Knative). Path patterns (a database `ref`, an instance wildcard) are not
/// exact, so the worker filters them: an event they exclude is acknowledged and not run.
/// Delivery: without `.retry(true)` no retries; with it `maxAttempts − 1` retries (or as many
/// exponential ones as fit in `maxEventAge`), from the backoff's first delay.
///
/// Credentials for the functions' Firebase calls come one of two ways: Workload Identity on GKE
/// (the pods run as a Kubernetes service account bound to a Google one, whose tokens the
/// metadata server gives), or a service account key from a Secret, mounted and named by
/// `GOOGLE_APPLICATION_CREDENTIALS`.
struct KnativeTarget {
    let functions: [DeployableFunction]
    let image: String
    let broker: String
    /// Where events go after their last attempt (`deadLetterSink.uri`).
    let deadLetterSink: String?
    /// The Firebase project whose ID tokens callable and blocking functions accept
    /// (`GOOGLE_CLOUD_PROJECT`, which Cloud Run sets and Knative does not).
    let project: String?
    /// The Realtime Database URL of `FIREBASE_CONFIG`.
    let databaseURL: String?
    /// The Kubernetes service account the pods run as (Workload Identity), if given.
    let serviceAccountName: String?
    /// The Secret holding a service account key as `key.json`, if given.
    let keySecret: String?
    /// The variables of the package's `.env` files and its params, given to every function.
    var environment: [String: String] = [:]

    /// Where a key Secret is mounted.
    static let keyFolder = "/var/secrets/google"

    /// Knative's default `max-revision-timeout-seconds`: a longer `timeoutSeconds` is refused
    /// unless the cluster's `config-defaults` allows it.
    static let defaultMaximumTimeout = 600

    /// The Kubernetes Secret a secret's value is read from: its name in lowercase with `-`
    /// for `_` (`secret` for a name of underscores alone), holding the value under the
    /// secret's own name.
    static func secretName(_ secret: String) -> String {
        let name = secret.lowercased().replacingOccurrences(of: "_", with: "-").trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return name.isEmpty ? "secret" : name
    }

    /// What the files cannot carry of the functions' options, and the Secrets to create, in words.
    var warnings: [String] {
        var warnings: [String] = []
        for secret in Set(functions.flatMap(\.secrets).map(\.secretName)).sorted() {
            warnings.append("the secret \(secret) is read from the Kubernetes Secret '\(Self.secretName(secret))': create it "
                + "with kubectl create secret generic \(Self.secretName(secret)) --from-literal=\(secret)=VALUE")
        }
        for function in functions {
            if function.options.timeout.seconds > Double(Self.defaultMaximumTimeout) {
                warnings.append("'\(function.name)' has a timeout of \(function.options.timeout.secondsText) s; Knative "
                    + "refuses more than \(Self.defaultMaximumTimeout) s unless the cluster's config-defaults "
                    + "raises max-revision-timeout-seconds")
            }
            let options = function.options
            if function.taskQueue != nil {
                warnings.append("'\(function.name)': Knative has no task queues; it is a plain Service, and its queue's "
                    + "schedule times, retries and rate limits need a dispatcher of your own (a Cloud Tasks queue "
                    + "whose HTTP target reaches the Service)")
                continue
            }
            if function.trigger?.schedule != nil {
                if options.retry {
                    warnings.append("'\(function.name)': a Knative PingSource does not retry a firing; its retries "
                        + "are not carried")
                }
                continue
            }
            guard function.trigger != nil, options.retry else { continue }
            let backoff = options.backoff, defaults = BackoffPolicy()
            if backoff.multiplier != defaults.multiplier || backoff.jitter != defaults.jitter {
                warnings.append("'\(function.name)': Knative doubles each retry's delay, without jitter; the backoff's "
                    + "multiplier (\(backoff.multiplier)) and jitter (\(backoff.jitter)) are not carried")
            }
            let retries = Self.retries(options)
            if retries > 1 {
                let longest = backoff.initial.seconds * Foundation.pow(2, Double(retries - 1))
                if longest > backoff.maximum.seconds {
                    warnings.append("'\(function.name)': Knative's backoff has no maximum: retry \(retries) waits "
                        + "\(Duration.seconds(longest).secondsText) s, past the backoff's maximum of "
                        + "\(backoff.maximum.secondsText) s (lower maxAttempts to stay under it)")
                }
            }
        }
        return warnings
    }

    /// One YAML file per function: its Service, then, for an event function, its Trigger.
    func documents() throws -> [(file: String, yaml: String)] {
        try functions.map { function in
            let nodes: [YAMLNode]
            if let schedule = function.trigger?.schedule {
                nodes = [service(function), try pingSource(function, schedule)]
            } else {
                nodes = function.trigger == nil ? [service(function)] : [service(function), try trigger(function)]
            }
            let documents = nodes.map { $0.rendered() }
            return (function.serviceName + ".yaml", documents.joined(separator: "---\n"))
        }
    }

    /// The Knative Service of a function.
    func service(_ function: DeployableFunction) -> YAMLNode {
        let options = function.options
        var annotations: [(String, YAMLNode)] = []
        if let minimum = options.minInstances { annotations.append(("autoscaling.knative.dev/min-scale", .string(String(minimum)))) }
        if let maximum = options.maxInstances { annotations.append(("autoscaling.knative.dev/max-scale", .string(String(maximum)))) }
        var environment: [(String, String)] = [
            ("FUNCTION_TARGET", function.name), ("FUNCTION_SIGNATURE_TYPE", function.signatureType),
        ]
        if let project { environment.append(("GOOGLE_CLOUD_PROJECT", project)) }
        let config = ["projectId": project, "databaseURL": databaseURL].compactMapValues { $0 }
        if !config.isEmpty {
            environment.append(("FIREBASE_CONFIG", JSONValue.object(config.mapValues(JSONValue.string)).serialized()))
        }
        if keySecret != nil { environment.append(("GOOGLE_APPLICATION_CREDENTIALS", Self.keyFolder + "/key.json")) }
        environment += self.environment.sorted { $0.key < $1.key }
        // Each secret comes from the Kubernetes Secret named after it (see `secretName(_:)`).
        let secrets: [YAMLNode] = function.secrets.map { secret in
            .map([("name", .string(secret.key)), ("valueFrom", .map([("secretKeyRef", .map([
                ("name", .string(Self.secretName(secret.secretName))), ("key", .string(secret.secretName)),
            ]))]))])
        }
        var container: [(String, YAMLNode)] = [
            ("image", .string(image)),
            ("ports", .list([.map([("containerPort", .number(8080))])])),
            ("env", .list(environment.map { .map([("name", .string($0.0)), ("value", .string($0.1))]) } + secrets)),
        ]
        if let memory = options.memoryMB {
            container.append(("resources", .map([("limits", .map([("memory", .string("\(memory)Mi"))]))])))
        }
        if keySecret != nil {
            container.append(("volumeMounts", .list([.map([
                ("name", "google-credentials"), ("mountPath", .string(Self.keyFolder)), ("readOnly", .plain("true")),
            ])])))
        }
        var template: [(String, YAMLNode)] = []
        if !annotations.isEmpty { template.append(("metadata", .map([("annotations", .map(annotations))]))) }
        var spec: [(String, YAMLNode)] = []
        if let serviceAccountName { spec.append(("serviceAccountName", .string(serviceAccountName))) }
        spec += [
            ("containerConcurrency", .number(options.concurrency)),
            ("timeoutSeconds", .number(Int(options.timeout.seconds.rounded(.up)))),
            ("containers", .list([.map(container)])),
        ]
        if let keySecret {
            spec.append(("volumes", .list([.map([
                ("name", "google-credentials"), ("secret", .map([("secretName", .string(keySecret))])),
            ])])))
        }
        template.append(("spec", .map(spec)))
        return .map([
            ("apiVersion", "serving.knative.dev/v1"),
            ("kind", "Service"),
            ("metadata", .map([("name", .string(function.serviceName)), ("labels", Self.labels)])),
            ("spec", .map([("template", .map(template))])),
        ])
    }

    /// The Knative Trigger of an event function.
    func trigger(_ function: DeployableFunction) throws -> YAMLNode {
        guard let trigger = function.trigger else { throw CLIError("function '\(function.name)' has no event trigger") }
        var attributes: [(String, YAMLNode)] = [("type", .string(trigger.eventType))]
        var filters = trigger.filters
        // A Pub/Sub event names its topic only in its source, which names the project too.
        if trigger.eventType == FirebaseEventType.pubSubPublished, let topic = filters.removeValue(forKey: "topic") {
            guard let project else {
                throw CLIError("function '\(function.name)': a Knative Trigger on Pub/Sub topic \(topic) filters on the "
                    + "event's source, which names the project: give --project")
            }
            filters["source"] = PubSub.source(project: project, topic: topic)
        }
        for (attribute, value) in filters.sorted(by: { $0.key < $1.key }) {
            guard attribute.first?.isLowercase == true,
                attribute.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) })
            else {
                throw CLIError("function '\(function.name)': a Knative Trigger cannot filter on the attribute "
                    + "'\(attribute)' (attribute names are lowercase letters and digits)")
            }
            attributes.append((attribute, .string(value)))
        }
        return .map([
            ("apiVersion", "eventing.knative.dev/v1"),
            ("kind", "Trigger"),
            ("metadata", .map([("name", .string(function.serviceName)), ("labels", Self.labels)])),
            ("spec", .map([
                ("broker", .string(broker)),
                ("filter", .map([("attributes", .map(attributes))])),
                ("subscriber", .map([("ref", .map([
                    ("apiVersion", "serving.knative.dev/v1"), ("kind", "Service"), ("name", .string(function.serviceName)),
                ]))])),
                ("delivery", .map(delivery(function))),
            ])),
        ])
    }

    /// The PingSource (sources.knative.dev/v1) that fires a scheduled function: unix-cron only
    /// (App Engine's `every …` phrases are refused), in the schedule's time zone, sending a
    /// `dev.knative.sources.ping` event that the worker takes as the firing.
    func pingSource(_ function: DeployableFunction, _ schedule: Schedule) throws -> YAMLNode {
        guard !schedule.expression.lowercased().hasPrefix("every ") else {
            throw CLIError("function '\(function.name)': a Knative PingSource reads unix-cron only, not '\(schedule.expression)': "
                + "write the schedule as cron (for example '*/5 * * * *' for 'every 5 minutes')")
        }
        let fields = schedule.expression.split(whereSeparator: \.isWhitespace)
        if fields.count == 5, fields[4].split(whereSeparator: { ",-/".contains($0) }).contains("7") {
            throw CLIError("function '\(function.name)': a Knative PingSource reads Sunday as 0 (or SUN), not 7: "
                + "write '\(schedule.expression)' with 0")
        }
        return .map([
            ("apiVersion", "sources.knative.dev/v1"),
            ("kind", "PingSource"),
            ("metadata", .map([("name", .string(function.serviceName)), ("labels", Self.labels)])),
            ("spec", .map([
                ("schedule", .string(schedule.expression)),
                ("timezone", .string(schedule.timeZoneIdentifier)),
                ("contentType", "application/json"),
                ("data", "{}"),
                ("sink", .map([("ref", .map([
                    ("apiVersion", "serving.knative.dev/v1"), ("kind", "Service"), ("name", .string(function.serviceName)),
                ]))])),
            ])),
        ])
    }

    /// The Trigger's delivery: retries, backoff and dead-letter sink.
    func delivery(_ function: DeployableFunction) -> [(String, YAMLNode)] {
        let options = function.options
        var delivery: [(String, YAMLNode)] = [("retry", .number(Self.retries(options)))]
        if options.retry {
            delivery.append(("backoffPolicy", "exponential"))
            delivery.append(("backoffDelay", .string(Self.isoDuration(options.backoff.initial))))
        }
        if let deadLetterSink { delivery.append(("deadLetterSink", .map([("uri", .string(deadLetterSink))]))) }
        return delivery
    }

    /// The retries after the first attempt: none without `retry`; `maxAttempts − 1` when set; else
    /// as many as Knative's exponential backoff (the delay doubling, without a cap) fits in `maxEventAge`.
    static func retries(_ options: FunctionOptions) -> Int {
        guard options.retry else { return 0 }
        if let attempts = options.maxAttempts { return max(0, attempts - 1) }
        let first = max(options.backoff.initial.seconds, 0.001)
        var retries = 0
        var waited = 0.0
        while retries < 100 {
            let next = first * Foundation.pow(2, Double(retries))
            guard waited + next <= options.maxEventAge.seconds else { break }
            waited += next
            retries += 1
        }
        return retries
    }

    /// An ISO-8601 duration in seconds: `PT10S`, `PT0.2S`.
    static func isoDuration(_ duration: Duration) -> String {
        "PT\(duration.secondsText)S"
    }

    private static let labels: YAMLNode = .map([("app.kubernetes.io/part-of", "swift-cloud-functions")])
}
