/// No access token could be had: the credential sources tried, and why each failed. Nothing of
/// a key or a secret is ever part of it.
public struct CredentialsError: Error, Sendable, CustomStringConvertible {
    /// A source that was tried and what became of it.
    public struct Attempt: Sendable, Hashable {
        /// The source, e.g. `GOOGLE_APPLICATION_CREDENTIALS (/secrets/key.json)`.
        public var source: String
        /// Why it gave no token.
        public var reason: String

        /// Creates an attempt.
        public init(source: String, reason: String) {
            self.source = source
            self.reason = reason
        }
    }

    /// What was wanted: `Google credentials`, `access token`, `Google Cloud project id`.
    public var wanted: String
    /// The sources tried, in order.
    public var attempts: [Attempt]

    /// Creates an error.
    public init(_ wanted: String, attempts: [Attempt]) {
        self.wanted = wanted
        self.attempts = attempts
    }

    public var description: String {
        "no \(wanted): " + attempts.map { "\($0.source): \($0.reason)" }.joined(separator: "; ")
    }
}
