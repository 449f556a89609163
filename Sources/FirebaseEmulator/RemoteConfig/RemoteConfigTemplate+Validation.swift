import Foundation
import CloudFunctions

extension RemoteConfigTemplate {
    /// The documented template limits.
    public enum Limits {
        /// Parameters per template, top-level and grouped together.
        public static let maxParameters = 3000
        /// Conditions per template.
        public static let maxConditions = 2000
        /// Parameter groups per template.
        public static let maxParameterGroups = 1000
        /// Characters in a parameter key.
        public static let maxParameterKeyLength = 256
        /// Characters in a parameter description.
        public static let maxParameterDescriptionLength = 100
        /// Characters in a condition name.
        public static let maxConditionNameLength = 100
        /// Characters in a parameter group name or description.
        public static let maxGroupNameLength = 256
        /// Characters in a version description.
        public static let maxVersionDescriptionLength = 1024
        /// Characters in all parameter value strings together.
        public static let maxTotalValueLength = 1_000_000
    }

    /// Checks the template against the documented limits and rules.
    ///
    /// Checks run in a fixed order (counts, version, conditions in template order, groups and then
    /// parameters in key order) and the first failure is reported. Lengths count Unicode scalars.
    ///
    /// - Throws: `ServiceError(.invalidArgument, "[VALIDATION_ERROR]: ...")` naming the offending
    ///   parameter key, condition or group.
    public func validate() throws(ServiceError) {
        let all = allParameterEntries
        try Self.check(
            all.count <= Limits.maxParameters, "Too many parameters: \(all.count) (limit \(Limits.maxParameters))")
        try Self.check(
            conditions.count <= Limits.maxConditions,
            "Too many conditions: \(conditions.count) (limit \(Limits.maxConditions))")
        try Self.check(
            parameterGroups.count <= Limits.maxParameterGroups,
            "Too many parameter groups: \(parameterGroups.count) (limit \(Limits.maxParameterGroups))")
        if let description = version?.description {
            try Self.check(
                Self.length(description) <= Limits.maxVersionDescriptionLength,
                "Version description exceeds \(Limits.maxVersionDescriptionLength) characters")
        }
        try validateConditions()
        try validateGroups()
        let conditionNames = Set(conditions.map(\.name))
        var places: [String: String] = [:]
        var totalValueLength = 0
        for entry in all {
            if let earlier = places[entry.key] {
                try Self.fail(
                    "Parameter key '\(entry.key)' appears in more than one place (\(earlier) and \(entry.place))")
            }
            places[entry.key] = entry.place
            try Self.validate(parameter: entry.parameter, key: entry.key, conditionNames: conditionNames)
            totalValueLength += entry.parameter.valueStrings.reduce(0) { $0 + Self.length($1) }
        }
        try Self.check(
            totalValueLength <= Limits.maxTotalValueLength,
            "Total length of parameter values exceeds \(Limits.maxTotalValueLength) characters")
    }

    private func validateConditions() throws(ServiceError) {
        var seen: Set<String> = []
        for (index, condition) in conditions.enumerated() {
            let name = condition.name
            try Self.check(!name.isEmpty, "Condition at index \(index) has an empty name")
            try Self.check(
                Self.length(name) <= Limits.maxConditionNameLength,
                "Condition name '\(name)' exceeds \(Limits.maxConditionNameLength) characters")
            try Self.check(
                name.unicodeScalars.allSatisfy(Self.isConditionNameScalar),
                "Condition name '\(name)' contains characters other than letters, digits, spaces and -_'!%.")
            try Self.check(seen.insert(name).inserted, "Duplicate condition name '\(name)'")
            if let color = condition.tagColor {
                try Self.check(
                    RemoteConfigCondition.tagColors.contains(color),
                    "Condition '\(name)' has an invalid tagColor '\(color)'")
            }
            _ = try condition.parsedExpression()
        }
    }

    private func validateGroups() throws(ServiceError) {
        for (name, group) in parameterGroups.sorted(by: { $0.key < $1.key }) {
            try Self.check(!name.isEmpty, "Parameter group name must not be empty")
            try Self.check(
                Self.length(name) <= Limits.maxGroupNameLength,
                "Parameter group name '\(name)' exceeds \(Limits.maxGroupNameLength) characters")
            try Self.check(
                Self.length(group.description ?? "") <= Limits.maxGroupNameLength,
                "Parameter group '\(name)' description exceeds \(Limits.maxGroupNameLength) characters")
        }
    }

    private static func validate(
        parameter: RemoteConfigParameter, key: String, conditionNames: Set<String>
    ) throws(ServiceError) {
        try check(
            length(key) <= Limits.maxParameterKeyLength,
            "Parameter key '\(key)' exceeds \(Limits.maxParameterKeyLength) characters")
        try check(
            isValidParameterKey(key),
            "Parameter key '\(key)' is invalid: it must start with a letter or '_' and contain only letters, "
                + "digits and '_'")
        try check(
            length(parameter.description ?? "") <= Limits.maxParameterDescriptionLength,
            "Parameter '\(key)' description exceeds \(Limits.maxParameterDescriptionLength) characters")
        let unknown = parameter.conditionalValues.keys.filter { !conditionNames.contains($0) }.sorted()
        if !unknown.isEmpty {
            try fail(
                "[\(unknown.joined(separator: ", "))] are not valid condition names. "
                    + "Parameter '\(key)' has conditional values for conditions that do not exist")
        }
        let type = parameter.valueType ?? .string
        try check(
            RemoteConfigParameterValueType.known.contains(type),
            "Parameter '\(key)' has an invalid valueType '\(type.rawValue)'")
        if let text = parameter.defaultValue?.stringValue, let problem = type.problem(with: text) {
            try fail("Parameter '\(key)' has valueType \(type.rawValue) but its default value \(problem)")
        }
        for (condition, value) in parameter.conditionalValues.sorted(by: { $0.key < $1.key }) {
            if let text = value.stringValue, let problem = type.problem(with: text) {
                try fail(
                    "Parameter '\(key)' has valueType \(type.rawValue) but its value for condition "
                        + "'\(condition)' \(problem)")
            }
        }
    }

    /// Whether `key` is a valid parameter key: `[A-Za-z_][A-Za-z0-9_]*`, at most 256 characters.
    public static func isValidParameterKey(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, length(key) <= Limits.maxParameterKeyLength else { return false }
        let isWord: (Unicode.Scalar) -> Bool = { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") }
        return isWord(first) && !("0"..."9").contains(first) && key.unicodeScalars.allSatisfy(isWord)
    }

    /// Every parameter with its key and where it lives (`top level` or `group 'g'`), in check order.
    private var allParameterEntries: [(key: String, parameter: RemoteConfigParameter, place: String)] {
        var entries = parameters.sorted { $0.key < $1.key }.map {
            (key: $0.key, parameter: $0.value, place: "top level")
        }
        for (name, group) in parameterGroups.sorted(by: { $0.key < $1.key }) {
            entries += group.parameters.sorted { $0.key < $1.key }.map {
                (key: $0.key, parameter: $0.value, place: "group '\(name)'")
            }
        }
        return entries
    }

    private static func isConditionNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_ '!%.".unicodeScalars.contains(scalar))
    }

    private static func length(_ text: String) -> Int { text.unicodeScalars.count }

    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws(ServiceError) {
        if !condition { try fail(message()) }
    }

    private static func fail(_ message: String) throws(ServiceError) -> Never {
        throw ServiceError(.invalidArgument, "[VALIDATION_ERROR]: \(message)")
    }
}
