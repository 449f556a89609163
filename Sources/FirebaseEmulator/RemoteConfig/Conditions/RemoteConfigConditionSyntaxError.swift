import Foundation
import CloudFunctions

/// A condition-expression syntax error: what went wrong and at which 1-based character.
struct RemoteConfigConditionSyntaxError: Error, Hashable {
    /// 1-based character position; one past the end for "unexpected end of expression".
    var position: Int
    /// What went wrong, e.g. `unexpected token 'foo'`.
    var reason: String
    /// What the parser expected instead, e.g. `a quoted string`.
    var expected: String?

    init(position: Int, reason: String, expected: String? = nil) {
        self.position = position
        self.reason = reason
        self.expected = expected
    }

    /// `<reason> at position N` plus ` (expected ...)` when known.
    var text: String {
        "\(reason) at position \(position)" + (expected.map { " (expected \($0))" } ?? "")
    }
}
