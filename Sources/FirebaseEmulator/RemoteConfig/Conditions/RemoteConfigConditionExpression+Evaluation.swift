import Foundation
import CloudFunctions

extension RemoteConfigConditionExpression {
    /// Evaluates the expression for an app instance fetching at `time`.
    ///
    /// An element whose input is unknown (`nil`, a missing user property or signal, a value that is
    /// not a number or version when one is needed) is false, even for negative operators.
    public func evaluate(for instance: RemoteConfigAppInstance, at time: Date) -> Bool {
        switch self {
        case .constant(let value):
            return value
        case .and(let terms):
            return terms.allSatisfy { $0.evaluate(for: instance, at: time) }
        case .or(let terms):
            return terms.contains { $0.evaluate(for: instance, at: time) }
        case .percent(let condition):
            return condition.evaluate(randomizationID: instance.installationID)
        case .predicate(.audiences, let test):
            guard let audiences = instance.audiences, case .audiences(let method, let names) = test else {
                return false
            }
            return Self.evaluate(method, names: names, audiences: audiences)
        case .predicate(.fetchTime, let test):
            return Self.evaluate(test, date: time)
        case .predicate(.firstOpenTime, let test):
            guard let firstOpen = instance.firstOpenTime else { return false }
            return Self.evaluate(test, date: firstOpen)
        case .predicate(let subject, let test):
            guard let value = Self.value(of: subject, in: instance) else { return false }
            return Self.evaluate(test, subject: subject, value: value)
        }
    }

    private static func value(of subject: RemoteConfigConditionSubject, in instance: RemoteConfigAppInstance)
        -> String?
    {
        switch subject {
        case .deviceOS: instance.platform
        case .deviceCountry: instance.countryCode
        case .deviceLanguage: instance.languageCode
        case .appID: instance.appID
        case .appVersion: instance.appVersion
        case .appBuild: instance.appBuild
        case .userProperty(let key): instance.userProperties[key]
        case .customSignal(let key): instance.customSignals[key]
        case .installationID: instance.installationID
        case .audiences, .firstOpenTime, .fetchTime: nil
        }
    }

    private static func evaluate(
        _ test: RemoteConfigConditionTest, subject: RemoteConfigConditionSubject,
        value: String
    ) -> Bool {
        switch test {
        case .equals(let target, let negated):
            let equal = subject == .deviceOS ? value.lowercased() == target.lowercased() : value == target
            return equal != negated
        case .inList(let targets):
            switch subject {
            case .deviceLanguage: return targets.contains { languageMatches(value, $0) }
            case .deviceCountry: return targets.contains { $0.uppercased() == value.uppercased() }
            default: return targets.contains(value)
            }
        case .string(let method, let targets):
            return evaluate(method, targets: targets, value: value)
        case .numeric(let comparison, let target):
            guard let number = parseNumber(value) else { return false }
            return comparison.holds(forOrdering: number < target ? -1 : (number > target ? 1 : 0))
        case .version(let comparison, let target):
            guard let ordering = compareVersions(value.trimmingCharacters(in: .whitespaces), target) else {
                return false
            }
            return comparison.holds(forOrdering: ordering)
        case .time, .audiences:
            return false
        }
    }

    private static func evaluate(
        _ method: RemoteConfigConditionTest.StringOperator, targets: [String],
        value: String
    ) -> Bool {
        switch method {
        case .contains:
            return targets.contains { value.contains($0) }
        case .notContains:
            return !targets.contains { value.contains($0) }
        case .exactlyMatches:
            return targets.contains(value)
        case .matches:
            let range = NSRange(value.startIndex..., in: value)
            return targets.contains { pattern in
                guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
                return regex.firstMatch(in: value, range: range) != nil
            }
        }
    }

    private static func evaluate(_ test: RemoteConfigConditionTest, date: Date) -> Bool {
        guard case .time(let comparison, let target) = test else { return false }
        return comparison.holds(forOrdering: date < target ? -1 : (date > target ? 1 : 0))
    }

    private static func evaluate(
        _ method: RemoteConfigConditionTest.AudienceOperator, names: [String],
        audiences: Set<String>
    ) -> Bool {
        switch method {
        case .inAtLeastOne: names.contains { audiences.contains($0) }
        case .inAll: names.allSatisfy { audiences.contains($0) }
        case .notInAtLeastOne: !names.contains { audiences.contains($0) }
        case .notInAll: !names.allSatisfy { audiences.contains($0) }
        }
    }

    /// Whether a device language matches a listed one: case-insensitive, `_` read as `-`, and a
    /// listed tag also matches its more specific tags (`en` matches `en-US`, not the reverse).
    static func languageMatches(_ device: String, _ listed: String) -> Bool {
        let deviceTag = device.lowercased().replacingOccurrences(of: "_", with: "-")
        let listedTag = listed.lowercased().replacingOccurrences(of: "_", with: "-")
        guard !listedTag.isEmpty else { return false }
        return deviceTag == listedTag || deviceTag.hasPrefix(listedTag + "-")
    }
}
