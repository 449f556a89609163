import FirebaseEmulator
import Hummingbird

/// Lets a group's routes run only for the owner: the Admin APIs (Remote Config templates, FCM
/// sends and topic management, Auth's project-scoped account calls) and the emulator's own
/// routes that change state. A route group adds it with the error form of its API.
///
/// Such a request from a web page of another origin is refused even with the credential, so
/// that no page the developer visits can publish a template, deploy a program or wipe
/// accounts.
struct OwnerOnlyMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext

    /// How the group's API words a refusal.
    enum Dialect: Sendable {
        /// Google APIs: `{"error": {"code", "message", "status"}}`.
        case google
        /// The Instance ID API: `{"error": "<CODE>"}`.
        case instanceID
        /// Identity Toolkit: Google's form with `errors`, and its own wording.
        case identityToolkit
    }

    let dialect: Dialect
    let origins: PageOrigins

    func handle(_ request: Request, context: Context, next: EmulatorResponder) async throws -> Response {
        guard let refusal = refusal(of: request) else { return try await next(request, context) }
        switch dialect {
        case .google: throw refusal
        case .instanceID:
            return .json(FCMTopicBatchRequest.errorBody(for: refusal), status: .init(code: refusal.httpStatus))
        case .identityToolkit: return AuthRoutes.errorResponse(refusal)
        }
    }

    /// Why `request` may not run a route of the group, or `nil` when it may.
    func refusal(of request: Request) -> ServiceError? {
        if let refusal = origins.refusal(of: request) { return refusal }
        if request.isAdmin { return nil }
        guard dialect == .identityToolkit else { return .unauthenticated }
        if request.headers[.authorization] != nil {
            return ServiceError(.unauthenticated, "UNAUTHENTICATED : the bearer token is not the emulator's (use 'owner')")
        }
        return ServiceError(.permissionDenied, "INSUFFICIENT_PERMISSION : this call needs Authorization: Bearer owner")
    }
}

extension ServiceError {
    /// The error for a privileged route called without the owner credential.
    static let unauthenticated = ServiceError(.unauthenticated,
        "Request is missing required authentication credential. Use Authorization: Bearer owner.")
}

extension EmulatorServer {
    /// A group of routes under `path` of `parent` that only the owner may call, refused in
    /// `dialect`.
    func ownerRoutes(
        _ path: RouterPath, of parent: some RouterMethods<EmulatorRequestContext>,
        dialect: OwnerOnlyMiddleware.Dialect = .google
    ) -> RouterGroup<EmulatorRequestContext> {
        parent.group(path).add(middleware: OwnerOnlyMiddleware(dialect: dialect, origins: origins))
    }

    /// The emulator's own API, under `emulator/v1/projects/{project}`: the routes any local
    /// caller may use, and those that need the owner credential.
    func emulatorProjectRoutes(
        of router: Router<EmulatorRequestContext>
    ) -> (open: RouterGroup<EmulatorRequestContext>, owner: RouterGroup<EmulatorRequestContext>) {
        let path: RouterPath = "emulator/v1/projects/:project"
        return (router.group(path), ownerRoutes(path, of: router))
    }
}
