import FirebaseEmulator
import HTTPTypes
import Hummingbird

/// Which web pages may change the emulator: its own console, wherever it is opened from.
///
/// Tools send no `Origin`. A page's request carries its origin and, from a browser,
/// `Sec-Fetch-Site`; only the emulator's own origins pass: those it listens on, and the
/// address a request names when no other site can claim that address (an IP address or a
/// loopback name, as where the console is opened from another machine,
/// `http://192.168.1.20:PORT`). A page of a domain pointed at this machine (DNS rebinding) names
/// its domain, and stays foreign.
struct PageOrigins: Sendable {
    /// The origins the emulator listens on (`http://127.0.0.1:PORT`, ...), once it listens.
    let listening: @Sendable () -> [String]

    /// Why a request sent by a web page of another origin is refused, or `nil` when no such
    /// page sent it.
    func refusal(of request: Request) -> ServiceError? {
        if let origin = request.headers[.origin], origin != Self.addressedOrigin(of: request),
            !listening().contains(origin)
        {
            return ServiceError(.permissionDenied,
                "Requests from web pages of another origin (\(origin)) cannot change the emulator.")
        }
        if request.headers[.secFetchSite].map({ $0 != "same-origin" && $0 != "none" }) == true {
            return ServiceError(.permissionDenied, "Cross-site requests cannot change the emulator.")
        }
        return nil
    }

    /// The origin of a page served at the address `request` names, when that address is an
    /// IP address or a loopback name.
    static func addressedOrigin(of request: Request) -> String? {
        guard let authority = request.head.authority else { return nil }
        let host = LoopbackHost.hostname(of: authority)
        guard LoopbackHost.isIPv4(host) || host.contains(":") || LoopbackHost.isLoopback(host: host) else { return nil }
        return "http://\(authority)"
    }
}

extension HTTPField.Name {
    /// `Sec-Fetch-Site`: browsers say where a request comes from (`same-origin`, `cross-site`, ...).
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}
