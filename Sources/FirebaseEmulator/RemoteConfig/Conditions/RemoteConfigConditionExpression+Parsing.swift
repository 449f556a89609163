import Foundation
import CloudFunctions

extension RemoteConfigConditionExpression {
    /// Parses a condition expression.
    ///
    /// - Parameters:
    ///   - expression: the expression text, e.g. `device.os == 'ios' && percent <= 10`.
    ///   - conditionName: the condition it belongs to, named in the error message.
    /// - Throws: `ServiceError.invalidArgument`, e.g. `[VALIDATION_ERROR]: Condition 'c1' expression:
    ///   unexpected token 'foo' at position 12` (positions are 1-based characters).
    public static func parse(
        _ expression: String, conditionName: String? = nil
    ) throws(ServiceError) -> RemoteConfigConditionExpression {
        do {
            return try RemoteConfigConditionParser.parse(expression)
        } catch {
            let subject = conditionName.map { "Condition '\($0)' expression" } ?? "Condition expression"
            throw ServiceError(.invalidArgument, 
                "[VALIDATION_ERROR]: \(subject): \(error.text)"
            )
        }
    }

    /// The numeric parts of a dotted version such as `1.2.10`; `nil` unless it is digits and dots.
    ///
    /// Parts keep their digits as text (leading zeros stripped) so any length compares without overflow.
    public static func versionComponents(_ text: String) -> [String]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !parts.isEmpty else { return nil }
        var result: [String] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let stripped = part.drop(while: { $0 == "0" })
            result.append(stripped.isEmpty ? "0" : String(stripped))
        }
        return result
    }

    /// Compares two dotted versions numerically, padding the shorter with zeros (`1.2` == `1.2.0`).
    ///
    /// - Returns: -1, 0 or 1; `nil` when either side is not a version.
    public static func compareVersions(_ lhs: String, _ rhs: String) -> Int? {
        guard let left = versionComponents(lhs), let right = versionComponents(rhs) else { return nil }
        for position in 0..<max(left.count, right.count) {
            let a = position < left.count ? left[position] : "0"
            let b = position < right.count ? right[position] : "0"
            if a.count != b.count { return a.count < b.count ? -1 : 1 }
            if a != b { return a < b ? -1 : 1 }
        }
        return 0
    }

    /// Parses a finite decimal number (`12`, `-3.5`, `1e3`); rejects hex, `inf` and `nan`.
    public static func parseNumber(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty,
            trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
            let value = Double(trimmed), value.isFinite
        else { return nil }
        return value
    }
}
