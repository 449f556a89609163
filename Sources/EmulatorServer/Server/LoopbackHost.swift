import FirebaseEmulator
import Hummingbird

/// Which `Host` names mean this machine's loopback interface.
///
/// A web page can point a domain of its own at 127.0.0.1 (DNS rebinding) and then read, as its
/// own origin, whatever a loopback server answers without a credential. Such requests carry
/// the page's domain in `Host`, which no client of a loopback server sends: they name
/// `localhost` (or a `*.localhost` name), `127.x.x.x` or `[::1]`. A value of this type is the
/// check of an emulator listening on one address: it checks names only when that address is a
/// loopback one (listening elsewhere, the emulator is meant to be reached by other names).
struct LoopbackHost: Sendable {
    /// The address the emulator listens on.
    let listeningHost: String
    /// Whether that address is a loopback one, and so whether `Host` names are checked.
    let checks: Bool

    init(listeningHost: String) {
        self.listeningHost = listeningHost
        checks = Self.isLoopback(host: listeningHost)
    }

    /// The refusal of a request whose `Host` names another host while the emulator listens on
    /// loopback only; `nil` to go on.
    func refusal(of request: Request) -> ServiceError? {
        guard checks, let authority = request.head.authority, !Self.isLoopback(authority: authority) else { return nil }
        return ServiceError(.permissionDenied,
            "The emulator listens on \(listeningHost) only and answers requests for localhost, 127.0.0.1 or "
                + "[::1], not for '\(authority)'; start it with --host to serve other names.")
    }

    /// Whether a `Host` header names a loopback host.
    static func isLoopback(authority: String) -> Bool {
        isCommon(authority) || isLoopback(host: hostname(of: authority))
    }

    /// Whether a `Host` header is `127.0.0.1` or `localhost`, with or without a port, as nearly
    /// every client sends it: checked without copying, on every request.
    static func isCommon(_ authority: String) -> Bool {
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
            // `[address]` or `[address]:port`; anything else after the bracket is no address.
            let inside = authority.dropFirst().prefix { $0 != "]" }
            let rest = authority.dropFirst(inside.count + 2)
            guard authority.dropFirst(inside.count + 1).first == "]", rest.isEmpty || rest.first == ":" else { return "" }
            return String(inside)
        }
        return String(authority.prefix { $0 != ":" })
    }

    /// Whether a host name or address always means this machine's loopback interface.
    static func isLoopback(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        return isIPv4(name) && name.hasPrefix("127.")
    }

    /// Whether a host is an IPv4 address (four numbers from 0 to 255).
    static func isIPv4(_ host: String) -> Bool {
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { UInt8($0) != nil }
    }
}
