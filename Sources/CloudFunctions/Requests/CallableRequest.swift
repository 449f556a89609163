import Foundation

/// A call to an `Https.onCall` function: the caller's data, decoded into the handler's type,
/// and who is calling.
public struct CallableRequest<Input: Sendable>: Sendable {
    /// The `data` the client sent.
    public var data: Input
    /// The signed-in caller, when the request carried a valid ID token.
    public var auth: AuthData?
    /// The calling app, when the request carried a valid App Check token.
    public var app: AppCheckData?
    /// The caller's FCM registration token (`Firebase-Instance-ID-Token`), not verified.
    public var instanceIdToken: String?
    /// Whether the caller asked for a streamed answer (`Accept: text/event-stream`).
    public var acceptsStreaming: Bool
    /// The HTTP request as it arrived.
    public var rawRequest: HTTPSRequest
    /// The function's context: logger, Admin clients, deadline.
    public var context: RequestContext

    /// Creates a request.
    public init(
        data: Input,
        auth: AuthData? = nil,
        app: AppCheckData? = nil,
        instanceIdToken: String? = nil,
        acceptsStreaming: Bool = false,
        rawRequest: HTTPSRequest = HTTPSRequest(),
        context: RequestContext
    ) {
        self.data = data
        self.auth = auth
        self.app = app
        self.instanceIdToken = instanceIdToken
        self.acceptsStreaming = acceptsStreaming
        self.rawRequest = rawRequest
        self.context = context
    }

    /// The signed-in caller's uid, or `unauthenticated` when nobody is signed in.
    ///
    /// - Throws: ``CallableError`` `unauthenticated`.
    public func requireAuth() throws(CallableError) -> AuthData {
        guard let auth else { throw CallableError(.unauthenticated, "the caller must be signed in") }
        return auth
    }
}

/// The signed-in caller of a callable function.
public struct AuthData: Sendable, Hashable {
    /// The user's uid (`sub`).
    public var uid: String
    /// Every claim of the ID token, custom claims included.
    public var token: [String: JSONValue]
    /// The ID token as sent.
    public var rawToken: String

    /// Creates the caller.
    public init(uid: String, token: [String: JSONValue] = [:], rawToken: String = "") {
        self.uid = uid
        self.token = token
        self.rawToken = rawToken
    }
}

/// The app calling a callable function, from its App Check token.
public struct AppCheckData: Sendable, Hashable {
    /// The Firebase app id (`sub`).
    public var appId: String
    /// Every claim of the App Check token.
    public var token: [String: JSONValue]

    /// Creates the app.
    public init(appId: String, token: [String: JSONValue] = [:]) {
        self.appId = appId
        self.token = token
    }
}
