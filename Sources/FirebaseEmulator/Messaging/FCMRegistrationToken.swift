import Foundation
import CloudFunctions

/// FCM-style device registration tokens: `<22-char instance id>:APA91b<134 URL-safe chars>`.
///
/// ``isWellFormed(_:)`` accepts what real devices hold: `<instance id>:APA91b<body>` with an
/// 11–64 character URL-safe instance id and at least 20 body characters, or a bare legacy
/// `APA91b<body>` token; at most 4096 characters overall.
package enum FCMRegistrationToken {
    /// The marker every token body starts with.
    public static let bodyPrefix = "APA91b"
    /// Characters after `APA91b` in a generated token.
    public static let generatedBodyLength = 134
    /// The message FCM answers a malformed token with.
    public static let invalidMessage = "The registration token is not a valid FCM registration token"

    /// The URL-safe base64 alphabet.
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)

    /// A new Firebase installation id: 22 URL-safe characters whose first 4 bits are `0111`
    /// (so it starts with `c`, `d`, `e` or `f`), as the installations service makes them.
    public static func generateInstanceID(using generator: inout some RandomNumberGenerator) -> String {
        var output = String.UnicodeScalarView()
        output.append(Array("cdef".unicodeScalars)[Int.random(in: 0..<4, using: &generator)])
        for _ in 1..<22 { output.append(alphabet[Int.random(in: 0..<64, using: &generator)]) }
        return String(output)
    }

    /// A new token `<instance id>:APA91b<134 chars>`; `instanceID` defaults to a fresh one.
    public static func generate(instanceID: String? = nil, using generator: inout some RandomNumberGenerator)
        -> String
    {
        let instance = instanceID ?? generateInstanceID(using: &generator)
        var body = String.UnicodeScalarView()
        for _ in 0..<generatedBodyLength { body.append(alphabet[Int.random(in: 0..<64, using: &generator)]) }
        return instance + ":" + bodyPrefix + String(body)
    }

    /// The instance id part of a token, when it has one.
    public static func instanceID(of token: String) -> String? {
        guard isWellFormed(token), let colon = token.firstIndex(of: ":") else { return nil }
        return String(token[..<colon])
    }

    /// Whether `token` looks like an FCM registration token.
    public static func isWellFormed(_ token: String) -> Bool {
        guard token.utf8.count <= 4096 else { return false }
        let parts = token.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let body: Substring
        if parts.count == 2 {
            guard (11...64).contains(parts[0].count), isURLSafe(parts[0]) else { return false }
            body = parts[1]
        } else {
            body = parts[0]
        }
        guard body.hasPrefix(bodyPrefix) else { return false }
        let rest = body.dropFirst(bodyPrefix.count)
        return rest.count >= 20 && isURLSafe(rest)
    }

    /// Checks a token.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` with FCM details, "The registration token is
    ///   not a valid FCM registration token".
    public static func validate(_ token: String, field: String = "message.token") throws(ServiceError) {
        guard isWellFormed(token) else { throw FCMErrorCode.invalidArgument(invalidMessage, field: field) }
    }

    private static func isURLSafe(_ text: Substring) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "-", "_": true
            default: false
            }
        }
    }
}
