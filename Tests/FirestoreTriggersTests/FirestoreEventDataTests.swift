import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirestoreTriggers
import Foundation
import SwiftProtobuf
import Testing

/// Reading the event data of Firestore triggers: the emulator's captured requests, a raw
/// protobuf event as Eventarc sends it, and the JSON form.
@Suite("Firestore: document event data")
struct FirestoreEventDataTests {
    @Test("an update, as the emulator sent it: both documents with every field, their times and the path")
    func capturedUpdate() throws {
        let change = try FirestoreDocumentTrigger.change(from: try Fixture.event("v2-written.update"))
        #expect(change.before.exists && change.after.exists)
        #expect(change.after.path == "users/alice")
        #expect(change.after.id == "alice")
        #expect(change.before["age"] == .integer(30))
        #expect(change.after["age"] == .integer(31))
        #expect(change.after["city"] == "Paris")
        #expect(change.before["city"] == nil)
        #expect(change.after["tags"] == ["a"])
        #expect(change.after["when"] == .timestamp(try #require(RFC3339Timestamp.date(from: "2026-01-02T03:04:05.123456Z"))))
        #expect(change.after.createTime == RFC3339Timestamp.date(from: "2026-11-28T20:15:41.239640Z"))
        #expect(change.after.updateTime == RFC3339Timestamp.date(from: "2026-11-28T20:16:10.007649Z"))
        #expect(change.before.updateTime == change.before.createTime)
    }

    @Test("each captured event reads the same from its protobuf bytes and from Google's JSON decoding of it",
        arguments: ["v2-written.create", "v2-written.update", "v2-written.delete", "v2-written.withAuthContext.create",
            "v2-created.delete-of-missing-doc"])
    func sameInEveryForm(_ name: String) throws {
        var event = try Fixture.event(name)
        let change = try FirestoreDocumentTrigger.change(from: event)
        event.dataContentType = "application/json"
        event.data = try Fixture.data(name + ".decoded.json")
        #expect(try FirestoreDocumentTrigger.change(from: event) == change)
    }

    @Test("a create has no document before it, a delete none after it")
    func capturedCreateAndDelete() throws {
        let created = try FirestoreDocumentTrigger.change(from: try Fixture.event("v2-written.create"))
        #expect(!created.before.exists && created.before.fields.isEmpty && created.before.path == "users/alice")
        #expect(created.after.exists && created.after["name"] == "Alice")
        let deleted = try FirestoreDocumentTrigger.change(from: try Fixture.event("v2-written.delete"))
        #expect(deleted.before.exists && deleted.before["name"] == "Alice")
        #expect(!deleted.after.exists && deleted.after.createTime == nil)
        let empty = try FirestoreDocumentTrigger.change(from: try Fixture.event("v2-created.delete-of-missing-doc"))
        #expect(!empty.before.exists && !empty.after.exists)
    }

    @Test("every Firestore value type survives a raw protobuf event, as Eventarc sends it, and its JSON form")
    func everyValueType() throws {
        func value(_ set: (inout Google_Events_Cloud_Firestore_V1_Value) -> Void) -> Google_Events_Cloud_Firestore_V1_Value {
            var value = Google_Events_Cloud_Firestore_V1_Value()
            set(&value)
            return value
        }
        var document = Google_Events_Cloud_Firestore_V1_Document()
        document.name = "projects/p/databases/(default)/documents/gameScores/s1"
        document.fields = [
            "nothing": value { $0.nullValue = .nullValue },
            "cheat": value { $0.booleanValue = false },
            "score": value { $0.integerValue = 9_007_199_254_740_993 },
            "ratio": value { $0.doubleValue = 0.25 },
            "at": value { $0.timestampValue = Google_Protobuf_Timestamp(seconds: 1_767_323_045, nanos: 123_456_000) },
            "player": value { $0.stringValue = "ada" },
            "avatar": value { $0.bytesValue = Data([0, 1, 254]) },
            "owner": value { $0.referenceValue = "projects/p/databases/(default)/documents/players/ada" },
            "where": value { $0.geoPointValue = .with { $0.latitude = 48.85; $0.longitude = 2.35 } },
            "levels": value { $0.arrayValue = .with { $0.values = [value { $0.integerValue = 1 }, value { $0.stringValue = "two" }] } },
            "meta": value { $0.mapValue = .with { $0.fields = ["device": value { $0.stringValue = "ios" }] } },
        ]
        document.createTime = Google_Protobuf_Timestamp(seconds: 1_767_323_045)
        document.updateTime = Google_Protobuf_Timestamp(seconds: 1_767_323_046)
        let payload = Google_Events_Cloud_Firestore_V1_DocumentEventData.with { $0.value = document }
        var event = CloudEvent(
            id: "e1", source: "//firestore.googleapis.com/projects/p/databases/(default)",
            type: FirestoreDocumentTrigger.EventType.created, subject: "documents/gameScores/s1",
            dataContentType: "application/protobuf", data: try payload.serializedData())
        event.extensions["document"] = .string("gameScores/s1")
        let expected: [String: FirestoreValue] = [
            "nothing": nil, "cheat": false, "score": .integer(9_007_199_254_740_993), "ratio": 0.25,
            "at": .timestamp(Date(timeIntervalSince1970: 1_767_323_045.123456)), "player": "ada",
            "avatar": .bytes(Data([0, 1, 254])), "owner": .reference("projects/p/databases/(default)/documents/players/ada"),
            "where": .geoPoint(FirestoreGeoPoint(latitude: 48.85, longitude: 2.35)), "levels": [1, "two"],
            "meta": ["device": "ios"],
        ]
        let fromProtobuf = try FirestoreDocumentTrigger.change(from: event).after
        #expect(fromProtobuf.fields == expected)
        #expect(fromProtobuf.createTime == Date(timeIntervalSince1970: 1_767_323_045))
        #expect(fromProtobuf["meta.device"] == "ios")

        event.dataContentType = "application/json"
        event.data = try payload.jsonUTF8Data()
        #expect(try FirestoreDocumentTrigger.change(from: event).after == fromProtobuf)
    }

    @Test("data(as:) decodes the fields into a Codable type, integers to the last digit")
    func decodable() throws {
        struct GameScore: Decodable, Equatable {
            struct Place: Decodable, Equatable { var latitude: Double; var longitude: Double }
            var playerName: String
            var score: Int64
            var cheatMode: Bool
            var at: Date
            var avatar: Data
            var place: Place
            var levels: [Int]
            var nickname: String?
        }
        let snapshot = DocumentSnapshot(path: "gameScores/s1", fields: [
            "playerName": "ada", "score": .integer(9_007_199_254_740_993), "cheatMode": false,
            "at": .timestamp(Date(timeIntervalSince1970: 1_767_323_045.5)), "avatar": .bytes(Data([7, 8])),
            "place": .geoPoint(FirestoreGeoPoint(latitude: 1.5, longitude: -2)), "levels": [1, 2], "nickname": nil,
        ])
        #expect(try snapshot.data(as: GameScore.self) == GameScore(
            playerName: "ada", score: 9_007_199_254_740_993, cheatMode: false,
            at: Date(timeIntervalSince1970: 1_767_323_045.5), avatar: Data([7, 8]),
            place: .init(latitude: 1.5, longitude: -2), levels: [1, 2], nickname: nil))
        #expect(throws: DecodingError.self) { try DocumentSnapshot(path: "a/b", fields: ["score": "high"]).data(as: GameScore.self) }
    }

    @Test("data that is not DocumentEventData is refused with the event's type")
    func refusesOtherData() throws {
        var event = try Fixture.event("v2-written.update")
        event.data = Data("not protobuf at all".utf8)
        #expect(throws: EventPayloadError.self) { try FirestoreDocumentTrigger.change(from: event) }
        event.dataContentType = "text/plain"
        let error = try #require(throws: EventPayloadError.self) { try FirestoreDocumentTrigger.change(from: event) }
        #expect(error.eventType == "google.cloud.firestore.document.v1.written")
    }
}
