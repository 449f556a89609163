import FirebaseEmulator
import HTTPTypes
import Hummingbird

/// The one place that decides which requests need the owner credential
/// (`Authorization: Bearer owner`, or a Google OAuth token as the Firebase emulators accept):
/// - the Admin APIs: Remote Config templates and versions, FCM sends and topic management,
///   Auth's project-scoped account creation and batch calls (refused in Auth's own wording);
/// - the emulator's own routes (`/emulator/v1/...`) that change state.
///
/// A request that needs it and comes from a web page of another origin is refused even with
/// the credential, so that no page the developer visits can publish a template, deploy a
/// program or wipe accounts with a cross-origin request; and the credential itself is refused
/// from such a page on every route (Auth's `accounts:update` and the database's
/// `.settings/rules.json` take it too), while client calls from web apps (an API key, an ID
/// token) stay open. Reads of the emulator's own routes
/// stay open, and so do the routes a device calls for itself (registering for messages,
/// logging analytics events, fetching config), as client SDK calls carry no credential.
///
/// The console is same-origin wherever it is opened: a page served at the address a request
/// names is the emulator's own when that address is an IP address or a loopback name.
///
/// While the emulator listens on loopback only, it also refuses (403) every request that names
/// another host than a loopback one (``LoopbackHost``): so a page that points its own domain at
/// 127.0.0.1 cannot read what the open routes answer. Listening elsewhere (`--host 0.0.0.0`,
/// an address of the machine), it is meant to be reached by other names, and checks none.
struct AdminOnlyMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext

    /// Refuses other host names while the emulator listens on loopback only.
    let hostCheck: LoopbackHost
    /// The emulator's own origin (`http://127.0.0.1:PORT`), once it listens; a console served
    /// from it may call these routes.
    let ownOrigins: @Sendable () -> [String]

    init(listeningHost: String, ownOrigins: @escaping @Sendable () -> [String]) {
        hostCheck = LoopbackHost(listeningHost: listeningHost)
        self.ownOrigins = ownOrigins
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let database = DatabaseRequest.isDatabasePath(request.uri.path)
        if let refusal = hostCheck.refusal(of: request) {
            if database { throw DatabaseHTTPError(error: refusal) }
            throw refusal
        }
        // Segments as the router sees them: `//emulator//v1/...` is the same route.
        let parts = request.uri.path.split(separator: "/")
        if request.isAdmin, let refusal = Self.foreignPage(request, ownOrigins: ownOrigins()) {
            if database { throw DatabaseHTTPError(error: refusal) }
            if parts.first == "identitytoolkit.googleapis.com" { return AuthRoutes.errorResponse(refusal) }
            throw refusal
        }
        // Realtime Database REST paths (`/iid/x.json`, ...) are the database's, under its rules.
        guard !database else { return try await next(request, context) }
        guard Self.isAdminOnly(request.method, parts) else { return try await next(request, context) }
        let auth = parts.first == "identitytoolkit.googleapis.com"
        if let refusal = Self.refusal(of: request, inAuthAPI: auth, ownOrigins: ownOrigins()) {
            // Each API family answers in its own error dialect.
            switch parts.first {
            case "iid":
                return .json(FCMTopicBatchRequest.errorBody(for: refusal), status: .init(code: refusal.httpStatus))
            case "identitytoolkit.googleapis.com": return AuthRoutes.errorResponse(refusal)
            default: throw refusal
            }
        }
        return try await next(request, context)
    }

    /// Why a request to an admin-only route is refused, or `nil` when it may go on; the Auth API
    /// (`inAuthAPI`) words it its own way.
    static func refusal(of request: Request, inAuthAPI auth: Bool, ownOrigins: [String]) -> ServiceError? {
        if let refusal = foreignPage(request, ownOrigins: ownOrigins) { return refusal }
        if request.isAdmin { return nil }
        guard auth else { return .unauthenticated }
        if request.headers[.authorization] != nil {
            return ServiceError(.unauthenticated,
                "UNAUTHENTICATED : the bearer token is not the emulator's (use 'owner')")
        }
        return ServiceError(.permissionDenied, "INSUFFICIENT_PERMISSION : this call needs Authorization: Bearer owner")
    }

    /// Why a request sent by a web page of another origin than the emulator's is refused, or
    /// `nil` when no such page sent it (tools send no `Origin`; the console sends its own).
    static func foreignPage(_ request: Request, ownOrigins: [String]) -> ServiceError? {
        if let origin = request.headers[.origin], !ownOrigins.contains(origin), origin != addressedOrigin(of: request) {
            return ServiceError(.permissionDenied,
                "Requests from web pages of another origin (\(origin)) cannot change the emulator.")
        }
        if request.headers[.secFetchSite].map({ $0 != "same-origin" && $0 != "none" }) == true {
            return ServiceError(.permissionDenied, "Cross-site requests cannot change the emulator.")
        }
        return nil
    }

    /// The origin of a page served at the address `request` names, when no other site can
    /// claim that address: an IP address or a loopback name, as where the console is opened
    /// from another machine (`http://192.168.1.20:PORT`). A page of a domain pointed at this
    /// machine (DNS rebinding) names its domain, and stays foreign.
    static func addressedOrigin(of request: Request) -> String? {
        guard let authority = request.head.authority else { return nil }
        let host = LoopbackHost.hostname(of: authority)
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        let address = (octets.count == 4 && octets.allSatisfy { UInt8($0) != nil }) || host.contains(":")
        guard address || LoopbackHost.isLoopback(host: host) else { return nil }
        return "http://\(authority)"
    }

    /// Whether a route needs the owner credential.
    static func isAdminOnly(_ method: HTTPRequest.Method, _ parts: [Substring]) -> Bool {
        switch parts.first {
        case "emulator":
            return parts.count >= 2 && parts[1] == "v1" && ![.get, .head].contains(method)
                && !isDeviceRoute(method, parts)
        case "iid":
            return true
        case "identitytoolkit.googleapis.com":
            // identitytoolkit.googleapis.com/v1/projects/{p}/accounts[:batchCreate|:batchDelete|:batchGet]
            return parts.count == 5 && parts[2] == "projects"
                && ["accounts", "accounts:batchCreate", "accounts:batchDelete", "accounts:batchGet"].contains(parts[4])
        case "v1":
            // v1/projects/{p}/remoteConfig[...] | namespaces/{n}/remoteConfig[...] | messages:send | registrations/...
            guard parts.count >= 4, parts[1] == "projects" else { return false }
            switch parts[3] {
            case "messages:send", "registrations": return true
            case "namespaces": return parts.count >= 6 && parts[5].hasPrefix("remoteConfig")
            default: return parts[3].hasPrefix("remoteConfig")
            }
        default:
            return false
        }
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
    static let unauthenticated = ServiceError(.unauthenticated,
        "Request is missing required authentication credential. Use Authorization: Bearer owner.")
}
