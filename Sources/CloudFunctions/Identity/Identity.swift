/// Blocking Authentication functions: Authentication calls them, and waits, before a user is
/// created or signs in. Return the fields to change (or `nil`), or throw a ``CallableError`` to
/// refuse; the client's sign-up or sign-in then fails with that error.
///
/// ```swift
/// functions["checkSignUp"] = Identity.beforeUserCreated { event in
///     guard !(event.data.email ?? "").hasSuffix("@mailinator.com") else {
///         throw CallableError(.invalidArgument, "disposable e-mail addresses are not accepted")
///     }
///     return BeforeCreateResponse(customClaims: ["plan": "free"])
/// }
/// ```
/// Blocking functions time out after 7 s at most (the platform's limit, and their default).
/// Users created through the Admin API do not run them, as in production.
public enum Identity {
    /// Runs before a new user is saved: sign-up, or a first sign-in with an identity provider.
    public static func beforeUserCreated(
        idToken: Bool = false,
        accessToken: Bool = false,
        refreshToken: Bool = false,
        _ handler: @escaping @Sendable (AuthBlockingEvent) async throws -> BeforeCreateResponse?
    ) -> CloudFunction {
        function(.beforeCreate, idToken, accessToken, refreshToken) { event in try await handler(event)?.fields }
    }

    /// Runs before a user gets tokens: every sign-in, and the sign-in that follows a sign-up.
    public static func beforeUserSignedIn(
        idToken: Bool = false,
        accessToken: Bool = false,
        refreshToken: Bool = false,
        _ handler: @escaping @Sendable (AuthBlockingEvent) async throws -> BeforeSignInResponse?
    ) -> CloudFunction {
        function(.beforeSignIn, idToken, accessToken, refreshToken) { event in try await handler(event)?.fields }
    }

    private static func function(
        _ event: BlockingTrigger.BlockingEvent,
        _ idToken: Bool,
        _ accessToken: Bool,
        _ refreshToken: Bool,
        _ handler: @escaping @Sendable (AuthBlockingEvent) async throws -> [String: JSONValue]?
    ) -> CloudFunction {
        let trigger = BlockingTrigger(event: event, idToken: idToken, accessToken: accessToken,
            refreshToken: refreshToken)
        var options = FunctionOptions()
        options.timeout = FunctionTrigger.blocking(trigger).maximumTimeout
        return CloudFunction(trigger: .blocking(trigger), options: options, problems: [], handler: .request {
            request, context in
            await BlockingProtocol.respond(to: request, context: context, trigger: trigger, handler: handler)
        })
    }
}
