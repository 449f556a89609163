import FirebaseEmulator
import Hummingbird

/// Refuses requests that name another host than a loopback one (403) while the emulator
/// listens on loopback only.
///
/// A web page can point a domain of its own at 127.0.0.1 (DNS rebinding) and then read, as its
/// own origin, whatever the emulator answers without a credential: the database under open
/// rules, templates, the event log. Such requests carry the page's domain in `Host`, which
/// no client of a loopback emulator sends: they name `localhost` (or a `*.localhost` name),
/// `127.x.x.x` or `[::1]`. An emulator listening elsewhere (`--host 0.0.0.0`, an address of
/// the machine) is meant to be reached by other names, and checks nothing.
struct LoopbackHostMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext

    /// The address the emulator listens on.
    let listeningHost: String
    /// Whether that address is a loopback one, and so whether names are checked.
    let checksNames: Bool

    init(listeningHost: String) {
        self.listeningHost = listeningHost
        checksNames = Self.isLoopback(listeningHost)
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard checksNames, let authority = request.head.authority, !Self.isCommonLoopback(authority),
            !Self.isLoopback(Self.hostname(of: authority))
        else { return try await next(request, context) }
        let refusal = ServiceError(.permissionDenied,
            "The emulator listens on \(listeningHost) only and answers requests for localhost, 127.0.0.1 or [::1], "
                + "not for '\(authority)'; start it with --host to serve other names.")
        if DatabaseRequest.isDatabasePath(request.uri.path) { throw DatabaseHTTPError(error: refusal) }
        throw refusal
    }

    /// Whether a `Host` header is `127.0.0.1` or `localhost`, with or without a port, as nearly
    /// every client sends it: checked without copying, on every request.
    static func isCommonLoopback(_ authority: String) -> Bool {
        var bytes = authority.utf8[...]
        for name in ["127.0.0.1", "localhost"] where bytes.starts(with: name.utf8) {
            bytes = bytes.dropFirst(name.utf8.count)
            return bytes.isEmpty || bytes.first == UInt8(ascii: ":")
        }
        return false
    }

    /// The host part of a `Host` header: without its port, and an IPv6 address without brackets.
    static func hostname(of authority: String) -> String {
        if authority.hasPrefix("[") {
            return String(authority.dropFirst().prefix { $0 != "]" })
        }
        return String(authority.prefix { $0 != ":" })
    }

    /// Whether a host name or address always means this machine's loopback interface.
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased().trimmingSuffix(".")
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}

extension String {
    /// The string without one trailing `suffix`, if it ends with it (`localhost.` is `localhost`).
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
