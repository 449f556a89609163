import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("Remote Config template validation")
struct RemoteConfigTemplateValidationTests {
    /// The validation message for `template`, or `nil` when it is valid.
    static func message(_ template: RemoteConfigTemplate) -> String? {
        do {
            try template.validate()
            return nil
        } catch {
            #expect(error.status == "INVALID_ARGUMENT")
            #expect(error.httpStatus == 400)
            return error.message
        }
    }

    static func parameter(_ value: String, type: RemoteConfigParameterValueType? = nil) -> RemoteConfigParameter {
        RemoteConfigParameter(defaultValue: .value(value), valueType: type)
    }

    @Test("accepts a valid template")
    func acceptsValid() {
        let template = RemoteConfigTemplate(
            conditions: [
                RemoteConfigCondition(name: "iOS users", expression: "device.os == 'ios'", tagColor: "BLUE"),
                RemoteConfigCondition(name: "10% beta!", expression: "percent <= 10"),
            ],
            parameters: [
                "_flag": Self.parameter("TRUE", type: .boolean),
                "count": RemoteConfigParameter(
                    defaultValue: .value("1.5e3"), conditionalValues: ["iOS users": .value("-2")], valueType: .number
                ),
                "blob": Self.parameter(#"{"a": [1, 2]}"#, type: .json),
                "inApp": RemoteConfigParameter(defaultValue: .useInAppDefault),
            ],
            parameterGroups: ["g": RemoteConfigParameterGroup(parameters: ["grouped": Self.parameter("x")])],
            version: TemplateVersion(versionNumber: 0, description: String(repeating: "d", count: 1024))
        )
        #expect(Self.message(template) == nil)
        #expect(Self.message(.empty) == nil)
    }

    @Test(
        "rejects invalid parameter keys",
        arguments: ["1abc", "a-b", "", "a b", "é", String(repeating: "k", count: 257)])
    func rejectsKeys(key: String) throws {
        let message = try #require(Self.message(RemoteConfigTemplate(parameters: [key: Self.parameter("v")])))
        #expect(message.hasPrefix("[VALIDATION_ERROR]: Parameter key '\(key)'"))
    }

    @Test("accepts a 256-character key")
    func acceptsLongKey() {
        let key = String(repeating: "k", count: 256)
        #expect(Self.message(RemoteConfigTemplate(parameters: [key: Self.parameter("v")])) == nil)
    }

    @Test("rejects more than 3000 parameters counting groups")
    func rejectsTooManyParameters() throws {
        var top: [String: RemoteConfigParameter] = [:]
        for index in 0..<2000 { top["p\(index)"] = Self.parameter("v") }
        var grouped: [String: RemoteConfigParameter] = [:]
        for index in 0..<1000 { grouped["q\(index)"] = Self.parameter("v") }
        var template = RemoteConfigTemplate(
            parameters: top, parameterGroups: ["g": RemoteConfigParameterGroup(parameters: grouped)]
        )
        #expect(Self.message(template) == nil)
        template.parameterGroups["h"] = RemoteConfigParameterGroup(parameters: ["extra": Self.parameter("v")])
        let message = try #require(Self.message(template))
        #expect(message == "[VALIDATION_ERROR]: Too many parameters: 3001 (limit 3000)")
    }

    @Test("rejects more than 2000 conditions")
    func rejectsTooManyConditions() throws {
        let conditions = (0...2000).map { RemoteConfigCondition(name: "c\($0)", expression: "true") }
        let message = try #require(Self.message(RemoteConfigTemplate(conditions: conditions)))
        #expect(message.contains("Too many conditions: 2001"))
    }

    @Test(
        "rejects bad condition names",
        arguments: [
            ("", "empty name"), (String(repeating: "n", count: 101), "exceeds 100"), ("a/b", "contains characters"),
        ])
    func rejectsConditionNames(name: String, fragment: String) throws {
        let template = RemoteConfigTemplate(conditions: [RemoteConfigCondition(name: name, expression: "true")])
        let message = try #require(Self.message(template))
        #expect(message.contains(fragment))
    }

    @Test("rejects duplicate condition names")
    func rejectsDuplicateConditions() throws {
        let condition = RemoteConfigCondition(name: "same", expression: "true")
        let message = try #require(Self.message(RemoteConfigTemplate(conditions: [condition, condition])))
        #expect(message == "[VALIDATION_ERROR]: Duplicate condition name 'same'")
    }

    @Test("rejects an unparsable expression naming the condition and position")
    func rejectsExpression() throws {
        let template = RemoteConfigTemplate(conditions: [
            RemoteConfigCondition(name: "c1", expression: "device.os == foo")
        ])
        let message = try #require(Self.message(template))
        let expected = "[VALIDATION_ERROR]: Condition 'c1' expression: unexpected token 'foo' at position 14"
        #expect(message == expected + " (expected a quoted string)")
    }

    @Test("rejects an unknown tag colour")
    func rejectsTagColor() throws {
        let template = RemoteConfigTemplate(
            conditions: [RemoteConfigCondition(name: "c", expression: "true", tagColor: "MAUVE")]
        )
        #expect(try #require(Self.message(template)).contains("invalid tagColor 'MAUVE'"))
    }

    @Test("rejects conditional values for unknown conditions")
    func rejectsUnknownConditions() throws {
        let parameter = RemoteConfigParameter(
            defaultValue: .value("a"), conditionalValues: ["foo": .value("b"), "bar": .value("c")]
        )
        let message = try #require(Self.message(RemoteConfigTemplate(parameters: ["k": parameter])))
        #expect(message.hasPrefix("[VALIDATION_ERROR]: [bar, foo] are not valid condition names."))
        #expect(message.contains("'k'"))
    }

    @Test("rejects a key in more than one place")
    func rejectsDuplicateKeys() throws {
        let template = RemoteConfigTemplate(
            parameters: ["k": Self.parameter("a")],
            parameterGroups: ["g": RemoteConfigParameterGroup(parameters: ["k": Self.parameter("b")])]
        )
        let message = try #require(Self.message(template))
        #expect(
            message == "[VALIDATION_ERROR]: Parameter key 'k' appears in more than one place (top level and group 'g')")
    }

    @Test(
        "rejects values that do not match the value type",
        arguments: [
            ("abc", RemoteConfigParameterValueType.number), ("", .number), ("0x10", .number), ("inf", .number),
            ("yes", .boolean), ("1", .boolean), ("{", .json), ("", .json),
        ])
    func rejectsTypeMismatch(value: String, type: RemoteConfigParameterValueType) throws {
        let message = try #require(
            Self.message(RemoteConfigTemplate(parameters: ["k": Self.parameter(value, type: type)])))
        #expect(
            message.hasPrefix("[VALIDATION_ERROR]: Parameter 'k' has valueType \(type.rawValue) but its default value"))
    }

    @Test("checks conditional values against the value type too")
    func rejectsConditionalMismatch() throws {
        let template = RemoteConfigTemplate(
            conditions: [RemoteConfigCondition(name: "c", expression: "true")],
            parameters: [
                "k": RemoteConfigParameter(
                    defaultValue: .value("1"), conditionalValues: ["c": .value("one")], valueType: .number
                )
            ]
        )
        #expect(try #require(Self.message(template)).contains("its value for condition 'c' 'one' is not a number"))
    }

    @Test("rejects an unknown value type")
    func rejectsUnknownType() throws {
        let template = RemoteConfigTemplate(parameters: ["k": Self.parameter("v", type: .init(rawValue: "DATE"))])
        #expect(try #require(Self.message(template)).contains("invalid valueType 'DATE'"))
    }

    @Test("rejects over-long descriptions and group names")
    func rejectsLengths() throws {
        var parameter = Self.parameter("v")
        parameter.description = String(repeating: "d", count: 101)
        #expect(
            try #require(Self.message(RemoteConfigTemplate(parameters: ["k": parameter]))).contains(
                "description exceeds 100"))
        let longName = String(repeating: "g", count: 257)
        let grouped = RemoteConfigTemplate(parameterGroups: [longName: RemoteConfigParameterGroup()])
        #expect(try #require(Self.message(grouped)).contains("exceeds 256"))
        let described = RemoteConfigTemplate(
            parameterGroups: ["g": RemoteConfigParameterGroup(description: String(repeating: "d", count: 257))]
        )
        #expect(try #require(Self.message(described)).contains("'g' description exceeds 256"))
        let version = RemoteConfigTemplate(
            version: TemplateVersion(versionNumber: 0, description: String(repeating: "d", count: 1025)))
        #expect(try #require(Self.message(version)).contains("Version description exceeds 1024"))
    }
}
