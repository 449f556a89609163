import CloudFunctions
import Foundation

/// The fields of a credentials file, read with reasons that name a field, never its value.
struct CredentialFields {
    let json: JSONValue
    /// How the file is named in reasons: `the service account key`.
    let what: String

    /// A field that must be a non-empty string.
    func required(_ name: String) throws(TokenEndpointError) -> String {
        guard let value = json[name]?.stringValue, !value.isEmpty else { throw TokenEndpointError("\(what) has no \(name)") }
        return value
    }

    /// A field that may be absent or empty.
    func optional(_ name: String) -> String? {
        json[name]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `token_uri`: where tokens are got, Google's endpoint when absent. Plain http is taken only
    /// for this machine (a local stand-in): elsewhere the grant's secrets would cross the network
    /// in the clear.
    func tokenURI() throws(TokenEndpointError) -> URL {
        let text = json["token_uri"]?.stringValue ?? TokenEndpoint.google.absoluteString
        guard let url = URL(string: text), let host = url.host?.lowercased() else {
            throw TokenEndpointError("\(what)'s token_uri is not an https URL")
        }
        switch url.scheme?.lowercased() {
        case "https": return url
        case "http" where ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host): return url
        default: throw TokenEndpointError("\(what)'s token_uri is not an https URL (http only for this machine)")
        }
    }
}
