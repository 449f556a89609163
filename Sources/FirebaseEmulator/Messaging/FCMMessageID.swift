import Foundation
import CloudFunctions

/// The name FCM returns for a sent message: `projects/{project}/messages/{id}`.
///
/// Generated ids look like production ones: `0:<16-digit microseconds>%<16 hex digits>`.
package struct FCMMessageID: Sendable, Hashable, CustomStringConvertible {
    /// The project id.
    public var projectID: String
    /// The message id, e.g. `0:1500415314455276%31bd1c9631bd1c96`.
    public var messageID: String

    /// Creates a name from its parts.
    public init(projectID: String, messageID: String) {
        self.projectID = projectID
        self.messageID = messageID
    }

    /// Parses `projects/{p}/messages/{id}`; `nil` when the text has another shape.
    public init?(name: String) {
        let parts = name.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "projects", parts[2] == "messages", !parts[1].isEmpty,
            !parts[3].isEmpty
        else { return nil }
        self.init(projectID: String(parts[1]), messageID: String(parts[3]))
    }

    /// A new id for a message sent at `date`.
    public static func generate(projectID: String, at date: Date, using generator: inout some RandomNumberGenerator)
        -> FCMMessageID
    {
        let raw = date.timeIntervalSince1970 * 1_000_000
        let micros = raw.isFinite ? max(0, min(raw, 9_000_000_000_000_000)).rounded(.down) : 0
        let digits = String(Int64(micros))
        let padded = String(repeating: "0", count: max(0, 16 - digits.count)) + digits
        let hex = String(generator.next() as UInt64, radix: 16)
        let suffix = String(repeating: "0", count: max(0, 16 - hex.count)) + hex
        return FCMMessageID(projectID: projectID, messageID: "0:\(padded)%\(suffix)")
    }

    /// `projects/{p}/messages/{id}`.
    public var name: String { "projects/\(projectID)/messages/\(messageID)" }

    /// The send response body `{"name": ...}`.
    public var responseBody: JSONValue { ["name": .string(name)] }

    /// The name, `projects/{p}/messages/{id}`.
    public var description: String { name }
}
