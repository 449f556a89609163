import FirebaseEmulator
import HTTPTypes
import Hummingbird

/// Guards the emulator's own routes (`/emulator/v1/...`) that change state: they need the
/// owner credential (`Authorization: Bearer owner`), and a request sent by a web page of
/// another origin is refused even with it, so that no page the developer visits can deploy a
/// program, replay events or wipe accounts with a cross-origin POST.
///
/// Reads stay open, and so do the routes a device calls for itself (registering for
/// messages, logging analytics events), as client SDK calls need no credential.
struct EmulatorAdminMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext

    /// The emulator's own origin (`http://127.0.0.1:PORT`), once it listens; a console served
    /// from it may call these routes.
    let ownOrigins: @Sendable () -> [String]

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // Segments as the router sees them: `//emulator//v1/...` is the same route.
        let parts = request.uri.path.split(separator: "/")
        guard parts.count >= 2, parts[0] == "emulator", parts[1] == "v1", ![.get, .head].contains(request.method),
            !Self.isDeviceRoute(request.method, parts)
        else { return try await next(request, context) }
        if let origin = request.headers[.origin], !ownOrigins().contains(origin) {
            throw ServiceError.permissionDenied(
                "Requests from web pages of another origin (\(origin)) cannot change the emulator.")
        }
        if request.headers[.secFetchSite].map({ $0 != "same-origin" && $0 != "none" }) == true {
            throw ServiceError.permissionDenied("Cross-site requests cannot change the emulator.")
        }
        try request.requireAdmin()
        return try await next(request, context)
    }

    /// Registering a device and logging analytics events: what an app does for itself.
    static func isDeviceRoute(_ method: HTTPRequest.Method, _ parts: [Substring]) -> Bool {
        guard method == .post else { return false }
        // emulator/v1/projects/{p}/devices | analytics:log | apps/{app}/events
        guard parts.count >= 5 else { return false }
        let rest = parts.dropFirst(4)
        return rest.elementsEqual(["devices"]) || rest.elementsEqual(["analytics:log"])
            || (rest.count == 3 && rest.first == "apps" && rest.last == "events")
    }
}

extension HTTPField.Name {
    /// `Sec-Fetch-Site`: browsers say where a request comes from (`same-origin`, `cross-site`, ...).
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}

extension ServiceError {
    /// The error for a privileged route called without the owner credential.
    static let unauthenticated = ServiceError(status: "UNAUTHENTICATED", httpStatus: 401,
        message: "Request is missing required authentication credential. Use Authorization: Bearer owner.")
}
