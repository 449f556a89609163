import FirebaseEmulator
import Hummingbird

/// The checks every request passes, before any route:
/// - while the emulator listens on loopback only, a request that names another host than a
///   loopback one is refused (``LoopbackHost``), so a page that points its own domain at
///   127.0.0.1 cannot read what the open routes answer;
/// - the owner credential (`Authorization: Bearer owner`, or a Google OAuth token as the Firebase
///   emulators accept) is refused from a web page of another origin (``PageOrigins``) on every
///   route: the database's rules and Auth's `accounts:update` take it too.
///
/// Which routes need the credential is said where they are added (``OwnerOnlyMiddleware``).
/// The database and Auth answer these refusals in their own error forms.
struct HostAndOriginMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext

    let hostCheck: LoopbackHost
    let origins: PageOrigins

    func handle(_ request: Request, context: Context, next: EmulatorResponder) async throws -> Response {
        guard let refusal = hostCheck.refusal(of: request) ?? (request.isAdmin ? origins.refusal(of: request) : nil)
        else { return try await next(request, context) }
        if DatabaseRequest.isDatabasePath(request.uri.path) { throw DatabaseHTTPError(error: refusal) }
        if request.uri.path.hasPrefix("/identitytoolkit.googleapis.com/") { return AuthRoutes.errorResponse(refusal) }
        throw refusal
    }
}
