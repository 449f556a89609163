import Foundation

/// A host and port as a URL's authority, and as the `host:port` the emulator variables take:
/// an IPv6 address goes in brackets (`[::1]:4400`), a name or IPv4 address as it is.
package struct HostPort: Sendable, Hashable, CustomStringConvertible {
    /// The host: a name, an IPv4 address, or an IPv6 address with or without its brackets.
    package var host: String
    /// The port.
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `host:port` as the emulator variables give it (`127.0.0.1:8080`, `[::1]:8080`,
    /// `localhost:8080`); `nil` without a port from 0 to 65535.
    package init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        // ASCII letters and digits, and what names and IPv6 addresses hold: nothing a URL's host cannot.
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic
            || ("0"..."9").contains($0) || ".-_:%".unicodeScalars.contains($0)) })
        else { return nil }
        self.init(host: host, port: port)
    }

    /// `http://host:port` followed by `path`, whose characters a URL path cannot hold are
    /// percent-encoded.
    package func url(path: String) -> URL {
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        // A parsed host holds only characters a URL's host can.
        return URL(string: "http://\(self)" + encoded)!
    }

    /// `host:port`, the host bracketed when it is an IPv6 address.
    package var description: String {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(bracketed):\(port)"
    }
}
