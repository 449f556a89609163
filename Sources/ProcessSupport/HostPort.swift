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

    /// `host:port`, the host bracketed when it is an IPv6 address.
    package var description: String {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(bracketed):\(port)"
    }
}
