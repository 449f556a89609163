import Foundation

/// One function in a ``FunctionsManifest``.
public struct ManifestEndpoint: Sendable, Hashable {
    /// The symbol the runtime calls; the function's name.
    public var entryPoint: String
    /// `gcfv2` (CloudEvents) or `gcfv1` (legacy events).
    public var platform: String?
    /// Regions, e.g. `["us-central1"]`.
    public var region: [String]?
    /// Memory in MB; `nil` means the platform default.
    public var availableMemoryMb: Int?
    /// Timeout in seconds; `nil` means the platform default (60).
    public var timeoutSeconds: Int?
    /// Concurrent requests per instance; `nil` means the platform default.
    public var concurrency: Int?
    /// Minimum instances.
    public var minInstances: Int?
    /// Maximum instances.
    public var maxInstances: Int?
    /// Labels.
    public var labels: [String: String]
    /// The event trigger, when the function has one.
    public var eventTrigger: EventTriggerSpec?
    /// The other trigger kinds, kept as written: `httpsTrigger`, `callableTrigger`,
    /// `scheduleTrigger`, `blockingTrigger`, `taskQueueTrigger`.
    public var otherTriggers: [String: JSONValue]
    /// Delivery settings beyond the Firebase format (this runtime's extension).
    public var deliveryPolicy: DeliveryPolicySpec?
    /// The services the function calls through its Admin clients, when declared (this
    /// runtime's extension; see ``FunctionOption/uses(_:)``).
    public var adminServices: [AdminService]?
    /// The secrets the function is given, each as the environment variable `key`.
    public var secretEnvironmentVariables: [SecretEnvironmentVariable]

    /// A secret a function is given (`secretEnvironmentVariables`, as firebase-functions
    /// writes it: the secret of the same name unless `secret` says otherwise).
    public struct SecretEnvironmentVariable: Sendable, Hashable, Codable {
        /// The environment variable.
        public var key: String
        /// The secret's name, when it differs from `key`.
        public var secret: String?
        /// The project holding the secret, when not the function's.
        public var projectId: String?

        /// The secret's name.
        public var secretName: String { secret ?? key }
    }

    static let otherTriggerKeys = [
        "httpsTrigger", "callableTrigger", "scheduleTrigger", "blockingTrigger", "taskQueueTrigger",
    ]

    /// The event trigger section of an endpoint.
    public struct EventTriggerSpec: Sendable, Hashable, Codable {
        /// The event type, CloudEvent or 1st-gen name.
        public var eventType: String
        /// Attributes that must be equal.
        public var eventFilters: [String: String]
        /// Attributes that must match path patterns.
        public var eventFilterPathPatterns: [String: String]?
        /// Whether failures are retried.
        public var retry: Bool
    }

    /// Retry and age settings that the Firebase manifest has no keys for.
    public struct DeliveryPolicySpec: Sendable, Hashable, Codable {
        /// Events older than this are not delivered.
        public var maxEventAgeSeconds: Double
        /// The most attempts per event.
        public var maxAttempts: Int?
        /// The first retry delay.
        public var minBackoffSeconds: Double
        /// The longest retry delay.
        public var maxBackoffSeconds: Double
        /// How much the delay grows after each failure (absent in manifests written before it: 2).
        public var backoffMultiplier: Double?
        /// The random fraction of each delay (absent in manifests written before it: 0.5).
        public var backoffJitter: Double?
        /// How many times the delay grows by the multiplier before it grows linearly; absent
        /// for always.
        public var backoffMaxDoublings: Int?
    }

    /// The endpoint describing a registered function.
    ///
    /// A scheduled function's trigger is written as firebase-functions writes it
    /// (`scheduleTrigger`, with its `retryConfig`), its delivery options in `deliveryPolicy`.
    public init(name: String, function: CloudFunction) {
        let options = function.options
        entryPoint = name
        platform = "gcfv2"
        region = [options.deploymentRegion]
        availableMemoryMb = options.memoryMB
        timeoutSeconds = Int(options.timeout.seconds.rounded(.up))
        concurrency = options.concurrency
        minInstances = options.minInstances
        maxInstances = options.maxInstances
        labels = [:]
        eventTrigger = nil
        otherTriggers = [:]
        deliveryPolicy = nil
        adminServices = options.adminServices?.sorted()
        secretEnvironmentVariables = options.secrets.map { SecretEnvironmentVariable(key: $0) }
        switch function.trigger {
        case .event(let trigger) where trigger.eventType == Scheduler.eventType:
            otherTriggers["scheduleTrigger"] = Self.scheduleTrigger(trigger, options: options)
            deliveryPolicy = DeliveryPolicySpec(options)
        case .event(let trigger):
            eventTrigger = EventTriggerSpec(
                eventType: trigger.eventType,
                eventFilters: trigger.filters,
                eventFilterPathPatterns: trigger.pathPatterns.isEmpty ? nil : trigger.pathPatterns.mapValues(\.text),
                retry: options.retry
            )
            deliveryPolicy = DeliveryPolicySpec(options)
        case .https(let trigger):
            otherTriggers["httpsTrigger"] = .object(trigger.invoker.map { ["invoker": .array($0.map(JSONValue.string))] } ?? [:])
        case .callable(let trigger):
            labels["deployment-callable"] = "true"
            otherTriggers["callableTrigger"] = [:]
            if let invoker = trigger.invoker {
                // Callables are HTTPS functions to the platform; who may invoke them is set the same way.
                otherTriggers["callableTrigger"] = ["invoker": .array(invoker.map(JSONValue.string))]
            }
        case .blocking(let trigger):
            otherTriggers["blockingTrigger"] = [
                "eventType": .string(trigger.event.rawValue),
                "options": [
                    "idToken": .bool(trigger.idToken), "accessToken": .bool(trigger.accessToken),
                    "refreshToken": .bool(trigger.refreshToken),
                ],
            ]
        case .taskQueue(let trigger):
            otherTriggers["taskQueueTrigger"] = Self.taskQueueTrigger(trigger)
        }
    }

    /// The `taskQueueTrigger` of a task-queue function, as firebase-functions writes it (an
    /// unlimited `maxAttempts` is Cloud Tasks' -1; an unlimited duration, null).
    static func taskQueueTrigger(_ trigger: TaskQueueTrigger) -> JSONValue {
        let retry = trigger.retryConfig
        var json: [String: JSONValue] = [
            "retryConfig": [
                "maxAttempts": .number(Double(retry.maxAttempts ?? -1)),
                "maxRetrySeconds": retry.maxRetryDuration.map { .number($0.seconds) } ?? .null,
                "minBackoffSeconds": .number(retry.minBackoff.seconds),
                "maxBackoffSeconds": .number(retry.maxBackoff.seconds),
                "maxDoublings": .number(Double(retry.maxDoublings)),
            ],
            "rateLimits": [
                "maxConcurrentDispatches": .number(Double(trigger.rateLimits.maxConcurrentDispatches)),
                "maxDispatchesPerSecond": .number(trigger.rateLimits.maxDispatchesPerSecond),
            ],
        ]
        if let invoker = trigger.invoker { json["invoker"] = .array(invoker.map(JSONValue.string)) }
        return .object(json)
    }

    /// A `taskQueueTrigger` read back; the defaults of a deployed queue where it says nothing (null).
    static func taskQueueTrigger(_ json: JSONValue) -> TaskQueueTrigger {
        var trigger = TaskQueueTrigger()
        let retry = json["retryConfig"]
        func number(_ section: JSONValue?, _ key: String) -> Double? { section?[key]?.numberValue }
        func seconds(_ key: String) -> Duration? {
            number(retry, key).flatMap { (0...31_536_000).contains($0) ? .seconds($0) : nil }
        }
        if let attempts = number(retry, "maxAttempts").flatMap({ Int(exactly: $0) }) {
            trigger.retryConfig.maxAttempts = attempts < 0 ? nil : attempts
        }
        if let duration = seconds("maxRetrySeconds") { trigger.retryConfig.maxRetryDuration = duration > .zero ? duration : nil }
        if let duration = seconds("minBackoffSeconds") { trigger.retryConfig.minBackoff = duration }
        if let duration = seconds("maxBackoffSeconds") { trigger.retryConfig.maxBackoff = duration }
        if let doublings = number(retry, "maxDoublings").flatMap({ Int(exactly: $0) }) {
            trigger.retryConfig.maxDoublings = doublings
        }
        let limits = json["rateLimits"]
        if let concurrent = number(limits, "maxConcurrentDispatches").flatMap({ Int(exactly: $0) }) {
            trigger.rateLimits.maxConcurrentDispatches = concurrent
        }
        if let rate = number(limits, "maxDispatchesPerSecond") { trigger.rateLimits.maxDispatchesPerSecond = rate }
        trigger.invoker = json["invoker"]?.arrayValue?.compactMap(\.stringValue)
        return trigger
    }

    /// The `scheduleTrigger` of a scheduled function, as firebase-functions writes it.
    static func scheduleTrigger(_ trigger: EventTrigger, options: FunctionOptions) -> JSONValue {
        [
            "schedule": .string(trigger.filters[Scheduler.scheduleAttribute] ?? ""),
            "timeZone": .string(trigger.filters[Scheduler.timeZoneAttribute] ?? Scheduler.defaultTimeZone),
            "retryConfig": [
                "retryCount": .number(Double(options.retry ? max(0, (options.maxAttempts ?? 1) - 1) : 0)),
                "maxRetrySeconds": options.maxEventAge == FunctionOptions().maxEventAge
                    ? .null : .number(options.maxEventAge.seconds),
                "minBackoffSeconds": .number(options.backoff.initial.seconds),
                "maxBackoffSeconds": .number(options.backoff.maximum.seconds),
                "maxDoublings": options.backoff.maxDoublings.map { .number(Double($0)) } ?? .null,
            ],
        ]
    }

    /// A `scheduleTrigger`'s `retryConfig`, Cloud Scheduler's defaults where it says nothing (null).
    static func scheduleRetryConfig(_ json: JSONValue?) -> ScheduleRetryConfig {
        var config = ScheduleRetryConfig()
        if let count = json?["retryCount"]?.numberValue.flatMap({ Int(exactly: $0) }) { config.retryCount = count }
        // Seconds a Duration holds (a year at most): anything else is left at its default.
        func seconds(_ key: String) -> Duration? {
            json?[key]?.numberValue.flatMap { (0...31_536_000).contains($0) ? .seconds($0) : nil }
        }
        if let duration = seconds("maxRetrySeconds"), duration > .zero { config.maxRetryDuration = duration }
        if let duration = seconds("minBackoffSeconds") { config.minBackoff = duration }
        if let duration = seconds("maxBackoffSeconds") { config.maxBackoff = duration }
        if let doublings = json?["maxDoublings"]?.numberValue.flatMap({ Int(exactly: $0) }) { config.maxDoublings = doublings }
        return config
    }

    /// The function options this endpoint asks for; defaults where it says nothing.
    public var functionOptions: FunctionOptions {
        var options = FunctionOptions()
        options.retry = eventTrigger?.retry ?? false
        if let schedule = otherTriggers["scheduleTrigger"] {
            // As Cloud Scheduler runs a job: one firing at a time, retried as its retryConfig says.
            options.concurrency = 1
            options = options.retrying(as: Self.scheduleRetryConfig(schedule["retryConfig"]))
        }
        if let timeoutSeconds { options.timeout = .seconds(timeoutSeconds) }
        if let concurrency { options.concurrency = concurrency }
        options.region = region?.first
        options.memoryMB = availableMemoryMb
        options.minInstances = minInstances
        options.maxInstances = maxInstances
        options.adminServices = adminServices.map(Set.init)
        options.secrets = secretEnvironmentVariables.map(\.key)
        if let deliveryPolicy {
            options.maxEventAge = .seconds(deliveryPolicy.maxEventAgeSeconds)
            options.maxAttempts = deliveryPolicy.maxAttempts
            options.backoff.initial = .seconds(deliveryPolicy.minBackoffSeconds)
            options.backoff.maximum = .seconds(deliveryPolicy.maxBackoffSeconds)
            if let multiplier = deliveryPolicy.backoffMultiplier { options.backoff.multiplier = multiplier }
            if let jitter = deliveryPolicy.backoffJitter { options.backoff.jitter = jitter }
            options.backoff.maxDoublings = deliveryPolicy.backoffMaxDoublings
        }
        return options
    }

    /// What makes the endpoint's function run: its event trigger (see ``trigger()``; a
    /// schedule is one), or its HTTPS, callable, blocking or task-queue trigger; `nil` for an
    /// endpoint of none of these kinds.
    ///
    /// - Throws: ``PathPatternError`` for a malformed path pattern; `DecodingError` for a
    ///   blocking trigger of an unknown event type.
    public func functionTrigger() throws -> FunctionTrigger? {
        if let trigger = try trigger() { return .event(trigger) }
        func strings(_ value: JSONValue?) -> [String]? { value?["invoker"]?.arrayValue?.compactMap(\.stringValue) }
        if let https = otherTriggers["httpsTrigger"] { return .https(HTTPSTrigger(invoker: strings(https))) }
        if let callable = otherTriggers["callableTrigger"] {
            return .callable(CallableTrigger(invoker: strings(callable)))
        }
        if let queue = otherTriggers["taskQueueTrigger"] { return .taskQueue(Self.taskQueueTrigger(queue)) }
        if let blocking = otherTriggers["blockingTrigger"] {
            let type = blocking["eventType"]?.stringValue ?? ""
            guard let event = BlockingTrigger.BlockingEvent(rawValue: type) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [],
                    debugDescription: "blockingTrigger.eventType '\(type)' is not a blocking event this runtime serves"))
            }
            let options = blocking["options"]
            return .blocking(BlockingTrigger(
                event: event,
                idToken: options?["idToken"]?.boolValue ?? false,
                accessToken: options?["accessToken"]?.boolValue ?? false,
                refreshToken: options?["refreshToken"]?.boolValue ?? false
            ))
        }
        return nil
    }

    /// The trigger in CloudEvents terms: 1st-gen event types are mapped to CloudEvent types
    /// and the 1st-gen `resource` filter is dropped; a `scheduleTrigger` is the trigger of its
    /// firings (``Scheduler``).
    ///
    /// - Throws: ``PathPatternError`` for a malformed path pattern; `DecodingError` for a
    ///   `scheduleTrigger` without its schedule.
    public func trigger() throws -> EventTrigger? {
        if let schedule = otherTriggers["scheduleTrigger"] {
            guard let expression = schedule["schedule"]?.stringValue else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "scheduleTrigger has no schedule"))
            }
            return EventTrigger(eventType: Scheduler.eventType, filters: [
                Scheduler.scheduleAttribute: expression,
                Scheduler.timeZoneAttribute: schedule["timeZone"]?.stringValue ?? Scheduler.defaultTimeZone,
            ])
        }
        guard let spec = eventTrigger else { return nil }
        var filters = spec.eventFilters
        filters["resource"] = nil
        var patterns: [String: PathPattern] = [:]
        for (attribute, text) in spec.eventFilterPathPatterns ?? [:] {
            patterns[attribute] = try PathPattern(text)
        }
        return EventTrigger(
            eventType: LegacyEvent.typeMapping[spec.eventType] ?? spec.eventType,
            filters: filters,
            pathPatterns: patterns
        )
    }
}

extension ManifestEndpoint.DeliveryPolicySpec {
    /// The delivery settings of `options`.
    init(_ options: FunctionOptions) {
        self.init(
            maxEventAgeSeconds: options.maxEventAge.seconds,
            maxAttempts: options.maxAttempts,
            minBackoffSeconds: options.backoff.initial.seconds,
            maxBackoffSeconds: options.backoff.maximum.seconds,
            backoffMultiplier: options.backoff.multiplier,
            backoffJitter: options.backoff.jitter,
            backoffMaxDoublings: options.backoff.maxDoublings
        )
    }
}
