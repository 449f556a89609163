import CloudFunctions
import Foundation

/// The syntax tree of a condition expression.
///
/// Real templates only use conjunctions (`&&`); ``or(_:)`` and parentheses are accepted as an
/// emulator extension.
package indirect enum RemoteConfigConditionExpression: Sendable, Hashable {
    /// `true` or `false`.
    case constant(Bool)
    /// All elements hold (`a && b && c`).
    case and([RemoteConfigConditionExpression])
    /// At least one element holds (`a || b`, extension).
    case or([RemoteConfigConditionExpression])
    /// A test on one input of the app instance, e.g. `device.os == 'ios'`.
    case predicate(RemoteConfigConditionSubject, RemoteConfigConditionTest)
    /// A percentile bucket test, e.g. `percent('seed') between 0 and 25`.
    case percent(RemoteConfigPercentCondition)
}

/// The app-instance input a condition element reads.
package enum RemoteConfigConditionSubject: Sendable, Hashable {
    /// `device.os`: `ios`, `android` or `web`.
    case deviceOS
    /// `device.country`: ISO 3166-1 alpha-2 code.
    case deviceCountry
    /// `device.language`: BCP 47 language tag.
    case deviceLanguage
    /// `app.id`: the Firebase App ID.
    case appID
    /// `app.version`: CFBundleShortVersionString / versionName.
    case appVersion
    /// `app.build`: CFBundleVersion / versionCode.
    case appBuild
    /// `app.userProperty['key']`: an Analytics user property.
    case userProperty(String)
    /// `app.customSignal['key']`: a custom signal sent with the fetch.
    case customSignal(String)
    /// `app.firebaseInstallationId`.
    case installationID
    /// `app.audiences`: the Analytics audiences the instance belongs to.
    case audiences
    /// `app.firstOpenTimestamp`.
    case firstOpenTime
    /// `dateTime` / `device.dateTime`: the time of the fetch.
    case fetchTime
}

/// What a condition element checks about its subject's value.
package enum RemoteConfigConditionTest: Sendable, Hashable {
    /// `== 'x'` (or `!= 'x'` when `negated`): exact string comparison.
    case equals(String, negated: Bool)
    /// `in ['a', 'b']`: the value is one of the list (see the evaluator for language matching).
    case inList([String])
    /// `.contains([...])` and friends on a string value.
    case string(StringOperator, [String])
    /// An infix numeric comparison on a value that must parse as a number.
    case numeric(ComparisonOperator, Double)
    /// A dotted-version comparison: `app.version.>=(['1.2'])` or `version(app.customSignal['v']) >= '1.2'`.
    case version(ComparisonOperator, String)
    /// A comparison with an instant: `dateTime < dateTime('2025-06-01T00:00:00', 'America/Los_Angeles')`.
    case time(ComparisonOperator, Date)
    /// `app.audiences.inAtLeastOne([...])` and friends.
    case audiences(AudienceOperator, [String])

    /// The string methods.
    public enum StringOperator: String, Sendable, Hashable, CaseIterable {
        /// The value contains at least one of the strings.
        case contains
        /// The value contains none of the strings.
        case notContains
        /// The value equals one of the strings (case-sensitive).
        case exactlyMatches
        /// The value contains a match of at least one of the regular expressions.
        case matches
    }

    /// The comparison operators.
    public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
        /// `<`.
        case lessThan = "<"
        /// `<=`.
        case lessOrEqual = "<="
        /// `==`.
        case equal = "=="
        /// `!=`.
        case notEqual = "!="
        /// `>`.
        case greaterThan = ">"
        /// `>=`.
        case greaterOrEqual = ">="

        /// Whether a three-way comparison result (-1, 0, 1) satisfies the operator.
        public func holds(forOrdering ordering: Int) -> Bool {
            switch self {
            case .lessThan: ordering < 0
            case .lessOrEqual: ordering <= 0
            case .equal: ordering == 0
            case .notEqual: ordering != 0
            case .greaterThan: ordering > 0
            case .greaterOrEqual: ordering >= 0
            }
        }
    }

    /// The audience methods; the `not` forms are the logical negations of the others.
    public enum AudienceOperator: String, Sendable, Hashable, CaseIterable {
        /// In at least one of the audiences.
        case inAtLeastOne
        /// In every audience.
        case inAll
        /// In none of the audiences (not `inAtLeastOne`).
        case notInAtLeastOne
        /// Missing at least one of the audiences (not `inAll`).
        case notInAll
    }
}

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
