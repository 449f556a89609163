import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("Remote Config fetch evaluation")
struct RemoteConfigTemplateEvaluationTests {
    static let now = Date(timeIntervalSince1970: 1_748_736_000)

    static let template = RemoteConfigTemplate(
        conditions: [
            RemoteConfigCondition(name: "ios", expression: "device.os == 'ios'"),
            RemoteConfigCondition(name: "gold", expression: "app.userProperty['tier'].exactlyMatches(['gold'])"),
            RemoteConfigCondition(name: "broken", expression: "nonsense"),
        ],
        parameters: [
            "welcome": RemoteConfigParameter(
                defaultValue: .value("hi"), conditionalValues: ["gold": .value("hi gold"), "ios": .value("hi iOS")]
            ),
            "inAppWhenIOS": RemoteConfigParameter(
                defaultValue: .value("d"), conditionalValues: ["ios": .useInAppDefault]),
            "inAppDefault": RemoteConfigParameter(
                defaultValue: .useInAppDefault, conditionalValues: ["gold": .value("g")]),
            "noDefault": RemoteConfigParameter(conditionalValues: ["ios": .value("only iOS")]),
            "rollout": RemoteConfigParameter(
                defaultValue: .value("base"),
                conditionalValues: [
                    "ios": .opaque(["rolloutValue": ["rolloutId": "r", "value": "x"]]), "gold": .value("gold"),
                ]
            ),
            "brokenOnly": RemoteConfigParameter(
                defaultValue: .value("safe"), conditionalValues: ["broken": .value("bad")]),
        ],
        parameterGroups: [
            "group": RemoteConfigParameterGroup(parameters: [
                "grouped": RemoteConfigParameter(defaultValue: .value("g1"))
            ])
        ]
    )

    @Test("serves defaults when no condition holds and omits in-app defaults")
    func defaults() {
        let values = Self.template.evaluate(for: RemoteConfigAppInstance(platform: "android"), at: Self.now)
        #expect(
            values == [
                "welcome": "hi", "inAppWhenIOS": "d", "rollout": "base", "brokenOnly": "safe", "grouped": "g1",
            ])
    }

    @Test("lets the earliest true condition in template order win")
    func priority() {
        let instance = RemoteConfigAppInstance(platform: "ios", userProperties: ["tier": "gold"])
        let values = Self.template.evaluate(for: instance, at: Self.now)
        #expect(values["welcome"] == "hi iOS")
        #expect(values["inAppWhenIOS"] == nil)
        #expect(values["inAppDefault"] == "g")
        #expect(values["noDefault"] == "only iOS")
        #expect(values["rollout"] == "gold")
        #expect(values["brokenOnly"] == "safe")
        #expect(values["grouped"] == "g1")
    }

    @Test("uses later conditions when earlier ones are false")
    func laterCondition() {
        let instance = RemoteConfigAppInstance(platform: "web", userProperties: ["tier": "gold"])
        #expect(Self.template.evaluate(for: instance, at: Self.now)["welcome"] == "hi gold")
    }

    @Test("reports each condition's result, unparsable ones false")
    func conditionResults() {
        let results = Self.template.evaluateConditions(for: RemoteConfigAppInstance(platform: "ios"), at: Self.now)
        #expect(results == ["ios": true, "gold": false, "broken": false])
    }

    @Test("serves nothing from the never-published template")
    func emptyTemplate() {
        #expect(RemoteConfigTemplate.empty.evaluate(for: RemoteConfigAppInstance(), at: Self.now).isEmpty)
    }
}
