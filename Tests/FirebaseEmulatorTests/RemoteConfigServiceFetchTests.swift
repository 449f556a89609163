import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("Remote Config service: client fetch, throttling and defaults")
struct RemoteConfigServiceFetchTests {
    typealias Fixture = RemoteConfigServiceFixture

    static let template = RemoteConfigTemplate(
        conditions: [
            RemoteConfigCondition(name: "ios", expression: "device.os == 'ios'"),
            RemoteConfigCondition(name: "half", expression: "percent('seed') <= 50"),
            RemoteConfigCondition(name: "late", expression: "dateTime >= dateTime('2025-01-03T00:00:00')"),
        ],
        parameters: [
            "welcome": RemoteConfigParameter(
                defaultValue: .value("hi"), conditionalValues: ["ios": .value("hi iOS"), "half": .value("hi half")]),
            "inApp": RemoteConfigParameter(defaultValue: .value("d"), conditionalValues: ["ios": .useInAppDefault]),
            "sale": RemoteConfigParameter(defaultValue: .value("off"), conditionalValues: ["late": .value("on")]),
        ],
        parameterGroups: [
            "group": RemoteConfigParameterGroup(
                parameters: ["grouped": RemoteConfigParameter(defaultValue: .value("g"))])
        ]
    )

    @Test("answers NO_TEMPLATE for a namespace that never published, for any namespace name")
    func noTemplate() throws {
        let fixture = try Fixture()
        for namespace: RemoteConfigNamespace in [.firebase, .init(rawValue: "fireperf")] {
            let answer = try fixture.service.fetch(namespace: namespace, instance: RemoteConfigAppInstance())
            #expect(answer.state == .noTemplate)
            #expect(answer.entries.isEmpty)
            #expect(answer.templateVersion == "0")
            #expect(!answer.etag.isEmpty)
        }
    }

    @Test("evaluates conditions in template order and omits in-app defaults")
    func evaluation() async throws {
        let fixture = try Fixture()
        try await fixture.service.publish(Self.template, ifMatch: "*")
        let ios = try fixture.service.fetch(instance: RemoteConfigAppInstance(installationID: "fid", platform: "ios"))
        #expect(ios.state == .update)
        #expect(ios.templateVersion == "1")
        #expect(ios.entries == ["welcome": "hi iOS", "sale": "off", "grouped": "g"])
        fixture.clock.advance(to: Date(timeIntervalSince1970: 1_735_862_400))  // 2025-01-03T00:00:00Z
        let later = try fixture.service.fetch(instance: RemoteConfigAppInstance(platform: "android"))
        #expect(later.entries["sale"] == "on")
        #expect(later.entries["inApp"] == "d")
        let body = try JSONValue(parsing: try JSONEncoder().encode(ios))
        #expect(body == ["state": "UPDATE", "templateVersion": "1", "entries": ["welcome": "hi iOS", "sale": "off",
            "grouped": "g"]])
    }

    @Test("puts an installation in the same percent bucket on every fetch, by its id")
    func percent() async throws {
        let fixture = try Fixture()
        try await fixture.service.publish(Self.template, ifMatch: "*")
        var inHalf = 0
        for index in 0..<200 {
            let instance = RemoteConfigAppInstance(installationID: "fid-\(index)", platform: "android")
            let first = try fixture.service.fetch(instance: instance).entries["welcome"]
            let second = try fixture.service.fetch(instance: instance).entries["welcome"]
            #expect(first == second)
            if first == "hi half" { inHalf += 1 }
        }
        #expect((60...140).contains(inHalf))
        #expect(try fixture.service.fetch(instance: RemoteConfigAppInstance(platform: "android")).entries["welcome"]
            == "hi")
    }

    @Test("answers NO_CHANGE when If-None-Match is this instance's current ETag")
    func noChange() async throws {
        let fixture = try Fixture()
        try await fixture.service.publish(Self.template, ifMatch: "*")
        let instance = RemoteConfigAppInstance(installationID: "fid", platform: "ios")
        let first = try fixture.service.fetch(instance: instance)
        let again = try fixture.service.fetch(instance: instance, ifNoneMatch: first.etag)
        #expect(again.state == .noChange)
        #expect(again.entries.isEmpty)
        #expect(again.templateVersion == "1")
        #expect(again.etag == first.etag)
        let android = try fixture.service.fetch(instance: RemoteConfigAppInstance(platform: "android"),
            ifNoneMatch: first.etag)
        #expect(android.state == .update)
        try await fixture.service.publish(Self.template, ifMatch: "*")
        let republished = try fixture.service.fetch(instance: instance, ifNoneMatch: first.etag)
        #expect(republished.state == .update)
        #expect(republished.templateVersion == "2")
    }

    @Test("answers EMPTY_CONFIG when nothing resolves to a value")
    func emptyConfig() async throws {
        let fixture = try Fixture()
        let template = RemoteConfigTemplate(
            conditions: [RemoteConfigCondition(name: "ios", expression: "device.os == 'ios'")],
            parameters: ["only": RemoteConfigParameter(conditionalValues: ["ios": .value("x")])])
        try await fixture.service.publish(template, ifMatch: "*")
        let answer = try fixture.service.fetch(instance: RemoteConfigAppInstance(platform: "web"))
        #expect(answer.state == .emptyConfig)
        #expect(answer.entries.isEmpty)
        #expect(answer.templateVersion == "1")
        #expect(try fixture.service.fetch(instance: RemoteConfigAppInstance(platform: "ios")).state == .update)
    }

    @Test("throttles an instance over its fetch limit until the window passes")
    func throttling() throws {
        let fixture = try Fixture(fetchLimit: RemoteConfigFetchLimit(count: 2, window: .seconds(60)))
        let instance = RemoteConfigAppInstance(installationID: "fid")
        _ = try fixture.service.fetch(instance: instance)
        fixture.clock.advance(by: .seconds(10))
        _ = try fixture.service.fetch(instance: instance)
        let error = ServiceError(.resourceExhausted, 
            "[THROTTLED]: Too many fetches from app instance 'fid': the limit is 2 per 60 seconds. "
                + "Retry after 2025-01-02T03:05:05.678Z",
            details: ["throttleEndTime": "2025-01-02T03:05:05.678Z"])
        #expect(throws: error) { try fixture.service.fetch(instance: instance) }
        #expect(try fixture.service.fetch(instance: RemoteConfigAppInstance(installationID: "other")).state
            == .noTemplate)
        fixture.clock.advance(by: .seconds(50))
        _ = try fixture.service.fetch(instance: instance)
        #expect(throws: ServiceError.self) { try fixture.service.fetch(instance: instance) }
        fixture.service.setFetchLimit(nil)
        for _ in 0..<10 { _ = try fixture.service.fetch(instance: instance) }
    }

    @Test("renders the current defaults in every format", arguments: RemoteConfigDefaultsFormat.allCases)
    func downloadDefaults(_ format: RemoteConfigDefaultsFormat) async throws {
        let fixture = try Fixture()
        let empty = RemoteConfigTemplate.empty.renderDefaults(as: format)
        #expect(try fixture.service.downloadDefaults(format: format) == empty)
        try await fixture.service.publish(Self.template, ifMatch: "*")
        let rendered = try fixture.service.downloadDefaults(format: format)
        #expect(rendered == Self.template.renderDefaults(as: format))
        if format == .json {
            #expect(rendered == #"{"grouped":"g","inApp":"d","sale":"off","welcome":"hi"}"#)
        }
    }
}
