import CloudEvents
import CloudFunctions
import Foundation
import Testing

@Suite("Event payloads decode every reference vector")
struct PayloadVectorTests {
    @Test("Remote Config versions decode with versionNumber as a string or a number")
    func remoteConfigVersions() throws {
        let full = try JSONDecoder().decode(TemplateVersion.self, from: Fixture.data("remoteconfig-eventdata.full.json"))
        #expect(full.versionNumber == 5)
        #expect(full.rollbackSource == 75_404_139)
        #expect(full.updateUser == RemoteConfigUser(name: "Ut ad aute", email: "test@nowhere.com",
            imageUrl: "http://google.com/favicon.ico"))
        #expect(full.updateOrigin == .console)
        #expect(full.updateType == .incrementalUpdate)
        #expect(full.description == "minim reprehenderit Lorem qui proident")
        #expect(full.updateTime == RFC3339Timestamp.date(from: "2020-11-16T16:35:33.569229Z"))

        let sdk = try Fixture.json("remoteconfig-update.sdk-v1-spec.legacy.json")
        let numeric = try #require(sdk["data"]).decode(as: TemplateVersion.self)
        #expect(numeric.versionNumber == 1)
        #expect(numeric.updateUser?.name == "Foo Bar")
        #expect(numeric.rollbackSource == nil)
    }

    @Test("a Remote Config CloudEvent and its legacy form give the same version")
    func remoteConfigBothGenerations() throws {
        let cloudEvent = try CloudEvent(jsonFormat: Fixture.data("remoteconfig-update.cloudevent.json"))
        let legacy = try LegacyEvent.cloudEvent(from: Fixture.data("remoteconfig-update.legacy.json"))
        #expect(legacy.type == cloudEvent.type)
        #expect(legacy.source == cloudEvent.source)
        #expect(legacy.id == cloudEvent.id)
        #expect(legacy.time == cloudEvent.time)
        let a = try JSONDecoder().decode(TemplateVersion.self, from: cloudEvent.data!)
        let b = try JSONDecoder().decode(TemplateVersion.self, from: legacy.data!)
        #expect(a == b)
        #expect(a.versionNumber == 5)
        #expect(a.updateUser?.email == "test@nowhere.com")
    }

    @Test("versions encode versionNumber and rollbackSource as strings and read back")
    func versionEncoding() throws {
        let version = TemplateVersion(versionNumber: 9, updateTime: Date(timeIntervalSince1970: 1_735_787_045.678),
            updateType: .rollback, rollbackSource: 6)
        let json = try JSONValue(encoding: version)
        #expect(json["versionNumber"] == "9")
        #expect(json["rollbackSource"] == "6")
        #expect(json["updateTime"] == "2025-01-02T03:04:05.678Z")
        #expect(try json.decode(as: TemplateVersion.self) == version)
    }

    @Test("auth users decode from both generations and all metadata spellings")
    func authUsers() throws {
        let cloudEvent = try CloudEvent(jsonFormat: Fixture.data("auth-user-create.cloudevent.json"))
        let legacy = try LegacyEvent.cloudEvent(from: Fixture.data("auth-user-create.legacy.json"))
        for event in [cloudEvent, legacy] {
            let user = try JSONDecoder().decode(UserRecord.self, from: event.data!)
            #expect(user.uid == "UUpby3s4spZre6kHsgVSPetzQ8l2")
            #expect(user.email == "test@nowhere.com")
            #expect(user.emailVerified == false)
            #expect(user.disabled == false)
            #expect(user.customClaims.isEmpty)
            #expect(user.metadata.creationTime == RFC3339Timestamp.date(from: "2020-05-26T10:42:27Z"))
            #expect(user.metadata.lastSignInTime == RFC3339Timestamp.date(from: "2020-10-24T11:00:00Z"))
            #expect(user.providerData == [UserProviderInfo(uid: "test@nowhere.com", providerId: "password",
                email: "test@nowhere.com")])
        }
        let emulatorForm = #"{"uid":"u","metadata":{"creationTime":1700000000000,"lastSignInTime":"1700000001000"},"#
            + #""photoUrl":"p","custom_claims":"{\"admin\":true}"}"#
        let user = try JSONDecoder().decode(UserRecord.self, from: Data(emulatorForm.utf8))
        #expect(user.metadata.creationTime == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(user.metadata.lastSignInTime == Date(timeIntervalSince1970: 1_700_000_001))
        #expect(user.photoURL == "p")
        #expect(user.customClaims == ["admin": true])
        // A blocking call's user_record, in snake_case.
        let blocking = #"{"uid":"u","metadata":{"creation_time":1700000000000,"last_sign_in_time":1700000001000}}"#
        let blocked = try JSONDecoder().decode(UserRecord.self, from: Data(blocking.utf8))
        #expect(blocked.metadata.creationTime == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(blocked.metadata.lastSignInTime == Date(timeIntervalSince1970: 1_700_000_001))
    }

    @Test("legacy events convert to the CloudEvents the Functions Frameworks produce")
    func legacyConversion() throws {
        for (legacyName, cloudEventName) in [
            ("rtdb-write.legacy.json", "rtdb-write.cloudevent.json"),
            ("auth-user-create.legacy.json", "auth-user-create.cloudevent.json"),
            ("remoteconfig-update.legacy.json", "remoteconfig-update.cloudevent.json"),
        ] {
            let converted = try LegacyEvent.cloudEvent(from: Fixture.data(legacyName))
            let expected = try CloudEvent(jsonFormat: Fixture.data(cloudEventName))
            #expect(converted.type == expected.type, "\(legacyName)")
            #expect(converted.source == expected.source, "\(legacyName)")
            #expect(converted.subject == expected.subject, "\(legacyName)")
            #expect(converted.id == expected.id, "\(legacyName)")
            #expect(converted.time == expected.time, "\(legacyName)")
            #expect(try JSONValue(parsing: converted.data!) == JSONValue(parsing: expected.data!), "\(legacyName)")
        }
    }

    @Test("legacy database events carry the instance, ref, location and auth type")
    func legacyDatabaseExtensions() throws {
        let event = try LegacyEvent.cloudEvent(from: Fixture.data("rtdb-write.legacy.json"))
        #expect(event[attribute: "instance"] == "my-project-id")
        #expect(event[attribute: "ref"] == "gcf-test/xyz")
        #expect(event[attribute: "location"] == "us-central1")
        #expect(event[attribute: "authtype"] == "admin")

        var regional = try Fixture.json("rtdb-write.legacy.json").objectValue!
        regional["domain"] = "europe-west1.firebasedatabase.app"
        let converted = try LegacyEvent.cloudEvent(from: JSONValue.object(regional).serializedData())
        #expect(converted.source
            == "//firebasedatabase.googleapis.com/projects/_/locations/europe-west1/instances/my-project-id")
    }

    @Test("rejects legacy bodies it cannot convert")
    func legacyErrors() {
        #expect(throws: EventPayloadError.self) { try LegacyEvent.cloudEvent(from: Data("[]".utf8)) }
        #expect(throws: EventPayloadError.self) {
            try LegacyEvent.cloudEvent(from: Data(#"{"eventId":"1","eventType":"nope","data":1}"#.utf8))
        }
    }

    @Test("the consumer-accepted database event decodes into a change")
    func consumerAcceptedDatabaseEvent() throws {
        let headers = String(decoding: try Fixture.data("consumer-accepted.db.headers"), as: UTF8.self)
            .split(separator: "\n").map { line -> (String, String) in
                let parts = line.split(separator: ":", maxSplits: 1)
                return (String(parts[0]), String(parts[1]).trimmingCharacters(in: .whitespaces))
            }
        let event = try CloudEvent(httpMessage: CloudEventHTTPMessage(
            headers: headers,
            body: Fixture.data("consumer-accepted.db.json")
        ))
        let trigger = try #require(Database.ref("items/{id}").onWrite { _, _ in }.eventTrigger?.match(event))
        #expect(trigger == ["id": "abc"])
        let payload = try JSONValue(parsing: event.data!)
        let change = Change<DataSnapshot>(data: payload["data"]!, delta: payload["delta"]!, path: "items/abc")
        #expect(change.before.val() == ["name": "old", "count": 1])
        #expect(change.after.val() == ["name": "old", "count": 2, "tag": "x"])
    }
}
