import CloudEvents
import Foundation

/// The Firestore emulator's captured requests, copied into this test target.
enum Fixture {
    static func data(_ name: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw FixtureError(name: name)
        }
        return try Data(contentsOf: url)
    }

    /// The CloudEvent a captured `.http` request carries, its body base64-decoded as the
    /// emulator does before it commits the event (Eventarc sends the bytes themselves).
    static func event(_ name: String) throws -> CloudEvent {
        let text = String(decoding: try data(name + ".http"), as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let headers = parts[0].components(separatedBy: "\r\n").dropFirst().map { line in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        guard let body = Data(base64Encoded: parts[1]) else { throw FixtureError(name: name) }
        return try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: headers, body: body))
    }

    struct FixtureError: Error { let name: String }
}
