/// What makes a function run: an event, or a request of one of the four request kinds.
public enum FunctionTrigger: Sendable, Hashable {
    /// Events delivered through the bus (Remote Config, Database, Auth, Analytics, custom).
    case event(EventTrigger)
    /// Plain HTTPS requests (`Https.onRequest`).
    case https(HTTPSTrigger)
    /// Callable requests from the client SDKs (`Https.onCall`).
    case callable(CallableTrigger)
    /// Calls from Authentication before a user is created or signs in (`Identity.beforeUser…`).
    case blocking(BlockingTrigger)
    /// Tasks dispatched from the function's queue (`Tasks.queue(…).onDispatch`).
    case taskQueue(TaskQueueTrigger)

    /// The event trigger, for event functions.
    public var eventTrigger: EventTrigger? {
        if case .event(let trigger) = self { return trigger }
        return nil
    }

    /// The longest timeout the platform allows for this kind of function.
    public var maximumTimeout: Duration {
        switch self {
        // A schedule's firing is an HTTP request that Cloud Scheduler waits up to 30 minutes for.
        case .event(let trigger) where trigger.eventType == Scheduler.eventType: .seconds(1_800)
        case .event: .seconds(540)
        case .https, .callable: .seconds(3600)
        // Cloud Tasks waits up to 30 minutes for a task's answer.
        case .taskQueue: .seconds(1_800)
        case .blocking: .seconds(7)
        }
    }

    /// A short description: the event type, `https`, `callable`, `taskQueue`, or the blocking event.
    public var summary: String {
        switch self {
        case .event(let trigger): trigger.eventType
        case .https: "https"
        case .callable: "callable"
        case .blocking(let trigger): trigger.event.rawValue
        case .taskQueue: "taskQueue"
        }
    }
}

/// The settings of an `Https.onRequest` function.
public struct HTTPSTrigger: Sendable, Hashable {
    /// Who may invoke it where it is deployed (`["public"]`, service accounts); `nil` leaves
    /// the platform's default (private on Cloud Run).
    public var invoker: [String]?
    /// Which browser origins may call it.
    public var cors: CORSPolicy

    /// Creates the settings.
    public init(invoker: [String]? = nil, cors: CORSPolicy = .disabled) {
        self.invoker = invoker
        self.cors = cors
    }
}

/// The settings of an `Https.onCall` function.
public struct CallableTrigger: Sendable, Hashable {
    /// Who may invoke it where it is deployed; `nil` leaves the default (`public`, since
    /// callables check the caller's ID token themselves).
    public var invoker: [String]?
    /// Which browser origins may call it (all, by default, as the Firebase SDK does).
    public var cors: CORSPolicy
    /// Whether requests without a valid App Check token are refused with 401.
    public var enforceAppCheck: Bool

    /// Creates the settings.
    public init(invoker: [String]? = nil, cors: CORSPolicy = .allowAll, enforceAppCheck: Bool = false) {
        self.invoker = invoker
        self.cors = cors
        self.enforceAppCheck = enforceAppCheck
    }
}

/// The settings of a blocking Authentication function.
public struct BlockingTrigger: Sendable, Hashable {
    /// When Authentication calls it.
    public var event: BlockingEvent
    /// Whether the call carries the user's OAuth ID token (IdP sign-ins).
    public var idToken: Bool
    /// Whether the call carries the user's OAuth access token (IdP sign-ins).
    public var accessToken: Bool
    /// Whether the call carries the user's OAuth refresh token (IdP sign-ins).
    public var refreshToken: Bool

    /// Creates the settings.
    public init(event: BlockingEvent, idToken: Bool = false, accessToken: Bool = false, refreshToken: Bool = false) {
        self.event = event
        self.idToken = idToken
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }

    /// When a blocking function runs, named by its manifest event type.
    public enum BlockingEvent: String, Sendable, Hashable, CaseIterable {
        /// Before a new user is saved (`beforeUserCreated`).
        case beforeCreate = "providers/cloud.auth/eventTypes/user.beforeCreate"
        /// Before a user gets tokens (`beforeUserSignedIn`).
        case beforeSignIn = "providers/cloud.auth/eventTypes/user.beforeSignIn"

        /// The `event_type` of the JWT Authentication sends: `beforeCreate` or `beforeSignIn`.
        public var jwtEventType: String {
            switch self {
            case .beforeCreate: "beforeCreate"
            case .beforeSignIn: "beforeSignIn"
            }
        }
    }
}
