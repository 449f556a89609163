import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("Remote Config template JSON")
struct RemoteConfigTemplateCodingTests {
    static let fixture = """
        {
          "conditions": [
            {"name": "ios", "expression": "device.os == 'ios'", "tagColor": "BLUE"},
            {"name": "beta", "expression": "percent <= 10"}
          ],
          "parameters": {
            "welcome": {
              "defaultValue": {"value": "hi"},
              "conditionalValues": {"ios": {"value": "hi iOS"}, "beta": {"useInAppDefault": true}},
              "description": "greeting",
              "valueType": "STRING"
            },
            "promo": {"defaultValue": {"rolloutValue": {"rolloutId": "r1", "value": "x", "percent": 5}}}
          },
          "parameterGroups": {
            "g": {
              "description": "group",
              "parameters": {"limit": {"defaultValue": {"value": "5"}, "valueType": "NUMBER"}}
            }
          },
          "version": {
            "versionNumber": "86",
            "updateTime": "2025-01-02T03:04:05.678912Z",
            "updateUser": {"email": "a@b.c", "name": "A", "imageUrl": "http://i"},
            "updateOrigin": "ADMIN_SDK_NODE",
            "updateType": "ROLLBACK",
            "description": "d",
            "rollbackSource": "77"
          }
        }
        """

    @Test("decodes every documented field")
    func decodesFields() throws {
        let template = try RemoteConfigTemplate.decode(from: Data(Self.fixture.utf8))
        #expect(template.conditions.map(\.name) == ["ios", "beta"])
        #expect(template.conditions[0].tagColor == "BLUE")
        let welcome = try #require(template.parameters["welcome"])
        #expect(welcome.defaultValue == .value("hi"))
        #expect(welcome.conditionalValues["beta"] == .useInAppDefault)
        #expect(welcome.valueType == .string)
        guard case .opaque(let object) = template.parameters["promo"]?.defaultValue else {
            Issue.record("rolloutValue should be kept opaque")
            return
        }
        #expect(object["rolloutValue"]?["rolloutId"] == "r1")
        #expect(template.parameterGroups["g"]?.parameters["limit"]?.valueType == .number)
        let version = try #require(template.version)
        #expect(version.versionNumber == 86)
        let updateTime = try #require(version.updateTime)
        #expect(abs(updateTime.timeIntervalSince1970 - 1_735_787_045.678912) < 0.000_001)
        #expect(version.updateUser == RemoteConfigUser(name: "A", email: "a@b.c", imageUrl: "http://i"))
        #expect(version.updateOrigin == .adminSDKNode)
        #expect(version.updateType == .rollback)
        #expect(version.rollbackSource == 77)
        #expect(template.versionNumber == 86)
    }

    @Test("round-trips through JSON")
    func roundTrips() throws {
        let template = try RemoteConfigTemplate.decode(from: Data(Self.fixture.utf8))
        let again = try RemoteConfigTemplate.decode(from: JSONEncoder().encode(template))
        #expect(again.conditions == template.conditions)
        #expect(again.parameters == template.parameters)
        #expect(again.parameterGroups == template.parameterGroups)
        #expect(again.version?.versionNumber == 86)
    }

    @Test("encodes the version number as a string and the time with milliseconds")
    func encodesVersion() throws {
        let version = TemplateVersion(
            versionNumber: 7, updateTime: Date(timeIntervalSince1970: 1_735_787_045.6789), rollbackSource: 6
        )
        let json = try JSONValue(encoding: version)
        #expect(json["versionNumber"] == "7")
        #expect(json["updateTime"] == "2025-01-02T03:04:05.678Z")
        #expect(json["rollbackSource"] == "6")
        #expect(json["description"] == nil)
    }

    @Test("decodes version numbers written as numbers")
    func versionNumberAsNumber() throws {
        let data = Data(#"{"version": {"versionNumber": 12, "rollbackSource": 3}}"#.utf8)
        let template = try RemoteConfigTemplate.decode(from: data)
        #expect(template.version?.versionNumber == 12)
        #expect(template.version?.rollbackSource == 3)
    }

    @Test("treats an empty object as the never-published version 0 template")
    func emptyTemplate() throws {
        let template = try RemoteConfigTemplate.decode(from: Data("{}".utf8))
        #expect(template == .empty)
        #expect(template.versionNumber == 0)
        let json = template.jsonValue
        #expect(json["conditions"] == [])
        #expect(json["parameters"] == [:])
        #expect(json["parameterGroups"] == [:])
    }

    @Test("keeps only the description in a publishable version")
    func publishableVersion() {
        let version = TemplateVersion(versionNumber: 3, description: "keep", updateType: .forcedUpdate)
        #expect(version.publishable == TemplateVersion(versionNumber: 0, description: "keep"))
    }

    @Test(
        "rejects malformed bodies as INVALID_ARGUMENT",
        arguments: [
            "not json", #"{"conditions": {}}"#, #"{"parameters": {"k": {"defaultValue": "x"}}}"#,
            #"{"version": {"versionNumber": "abc"}}"#, #"{"version": {"updateTime": "yesterday"}}"#,
            #"{"version": {"updateTime": 1735787045000}}"#, #"{"version": {"updateTime": "2025-01-02T03:04:05.1234567890Z"}}"#,
            #"{"parameters": {"k": {"defaultValue": {"value": 5}}}}"#,
            #"{"parameters": {"k": {"defaultValue": {"useInAppDefault": "yes"}}}}"#,
        ])
    func rejectsMalformed(body: String) {
        #expect(throws: ServiceError.self) { try RemoteConfigTemplate.decode(from: Data(body.utf8)) }
        do {
            _ = try RemoteConfigTemplate.decode(from: Data(body.utf8))
        } catch {
            #expect(error.status == "INVALID_ARGUMENT")
            #expect(error.message.hasPrefix("Invalid JSON payload received."))
        }
    }

    @Test("flattens grouped and top-level parameters")
    func flattens() throws {
        let template = try RemoteConfigTemplate.decode(from: Data(Self.fixture.utf8))
        #expect(Set(template.allParameters.keys) == ["welcome", "promo", "limit"])
    }
}
