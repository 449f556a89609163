import HTTPTypes
import Hummingbird
import Testing

@testable import EmulatorServer

/// Which web pages may change the emulator: its console, wherever it is opened from.
@Suite("The console's origin")
struct ConsoleOriginTests {
    static let origins = PageOrigins(listening: { [] })

    static func request(host: String, origin: String, site: String = "same-origin") -> Request {
        let head = HTTPRequest(method: .put, scheme: "http", authority: host, path: "/.settings/rules.json",
            headerFields: [.authorization: "Bearer owner", .origin: origin, .secFetchSite: site])
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }

    @Test("a console opened at an address of the machine is same-origin: an IP address, IPv6, a loopback name",
        arguments: ["192.168.1.20:4400", "10.0.0.7:9000", "[fe80::1]:4400", "127.0.0.1:4400", "localhost:4400"])
    func addressesAreOwnOrigins(host: String) {
        #expect(Self.origins.refusal(of: Self.request(host: host, origin: "http://\(host)")) == nil)
    }

    @Test("a page of a domain pointed at the machine (DNS rebinding), or of another address, stays foreign")
    func otherPagesStayForeign() {
        let cases = [
            ("evil.example:4400", "http://evil.example:4400"), ("192.168.1.20:4400", "http://192.168.1.21:4400"),
            ("192.168.1.20:4400", "http://192.168.1.20:4401"), ("192.168.1.20:4400", "https://192.168.1.20:4400"),
            ("1.2.3.4.evil.example:4400", "http://1.2.3.4.evil.example:4400"),
        ]
        for (host, origin) in cases {
            #expect(Self.origins.refusal(of: Self.request(host: host, origin: origin)) != nil,
                "\(host) \(origin)")
        }
        let crossSite = Self.request(host: "192.168.1.20:4400", origin: "http://192.168.1.20:4400", site: "cross-site")
        #expect(Self.origins.refusal(of: crossSite) != nil)
    }
}
