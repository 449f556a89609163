import Foundation
import ProcessSupport
import Testing

@Suite("Host and port")
struct HostPortTests {
    @Test("an IPv6 address is bracketed, so that the ready line and the emulator variables are usable URLs",
          arguments: [("127.0.0.1", "127.0.0.1:4400"), ("localhost", "localhost:4400"), ("::1", "[::1]:4400"),
                      ("[::1]", "[::1]:4400"), ("fe80::1", "[fe80::1]:4400")])
    func authority(host: String, expected: String) throws {
        let address = HostPort(host: host, port: 4400)
        #expect(address.description == expected)
        let url = try #require(URL(string: "http://\(address)/"))
        #expect(url.port == 4400)
    }
}
