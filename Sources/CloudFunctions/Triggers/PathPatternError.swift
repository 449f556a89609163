/// A path pattern that cannot be used, and why.
public struct PathPatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public var pattern: String
    /// What is wrong with it.
    public var reason: String

    /// Creates an error.
    public init(pattern: String, reason: String) {
        self.pattern = pattern
        self.reason = reason
    }

    public var description: String { "invalid path pattern '\(pattern)': \(reason)" }
}
