import Foundation
import CloudFunctions

extension RemoteConfigTemplate {
    /// Evaluates every condition for an app instance fetching at `time`.
    ///
    /// - Returns: condition name → result; a condition whose expression does not parse is false, and
    ///   for duplicated names the first condition counts.
    public func evaluateConditions(for instance: RemoteConfigAppInstance, at time: Date) -> [String: Bool] {
        var results: [String: Bool] = [:]
        for condition in conditions where results[condition.name] == nil {
            let expression = try? condition.parsedExpression()
            results[condition.name] = expression?.evaluate(for: instance, at: time) ?? false
        }
        return results
    }

    /// The values an app instance fetching at `time` receives: a flat map over top-level and grouped
    /// parameters (the resolution rule: the first true condition in template order wins).
    ///
    /// For each parameter, the conditional value of the earliest true condition in template order
    /// wins, else the default value. A winning `useInAppDefault` (or no value at all) leaves the key
    /// out. Console-only value forms (personalization, rollout) are skipped as if absent.
    public func evaluate(for instance: RemoteConfigAppInstance, at time: Date) -> [String: String] {
        let results = evaluateConditions(for: instance, at: time)
        let activeConditions = conditions.map(\.name).filter { results[$0] == true }
        var values: [String: String] = [:]
        for (key, parameter) in allParameters {
            if let value = Self.resolve(parameter, activeConditions: activeConditions) {
                values[key] = value
            }
        }
        return values
    }

    private static func resolve(_ parameter: RemoteConfigParameter, activeConditions: [String]) -> String? {
        for name in activeConditions {
            switch parameter.conditionalValues[name] {
            case .value(let text): return text
            case .useInAppDefault: return nil
            case .opaque, nil: continue
            }
        }
        return parameter.defaultValue?.stringValue
    }
}
