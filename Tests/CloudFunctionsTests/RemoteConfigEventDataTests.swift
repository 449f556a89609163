import CloudEvents
import CloudFunctions
import Foundation
import Logging
import Synchronization
import Testing

/// `RemoteConfig.onUpdate` reads the event's data with a reader of its own, and must hand the
/// handler exactly what `JSONDecoder` makes of the same bytes, or fail where it fails.
@Suite("Remote Config functions read event data as JSONDecoder does")
struct RemoteConfigEventDataTests {
    static let payloads: [String] = [
        // What the emulator and Firebase send.
        #"{"versionNumber":"42","updateTime":"2026-11-25T10:00:00.000Z","updateUser":{"email":"dev@example.com"},"description":"benchmark publish","updateOrigin":"CONSOLE","updateType":"INCREMENTAL_UPDATE"}"#,
        #"{"versionNumber":"7","updateTime":"2020-11-16T16:35:33.569229Z","updateUser":{"name":"Ut ad aute","email":"test@nowhere.com","imageUrl":"http://google.com/favicon.ico"},"updateOrigin":"CONSOLE","updateType":"ROLLBACK","rollbackSource":"75404139","isLegacy":false}"#,
        // The Node SDK's numbers, nulls, white space, unknown members of every kind.
        #" { "versionNumber" : 1 , "rollbackSource" : null , "updateUser" : null , "extra" : { "a" : [ 1 , { "b" : "c" } ] , "d" : true } } "#,
        #"{"versionNumber":-3,"description":null,"updateOrigin":null,"updateType":null,"isLegacy":null,"updateTime":null}"#,
        #"{"updateUser":{"name":null,"image_url":"http://x/y.png","other":1}}"#,
        #"{"updateUser":{"email":"a@b","imageUrl":"i","image_url":"j"}}"#,
        #"{"description":"caf\u00e9 \"quoted\"\n\ud83d\ude00 tab\t"}"#,
        #"{"description":"naïve — ünïcödé"}"#,
        #"{}"#,
        // What the lenient decoding reads in other ways: the reader leaves these to JSONDecoder.
        #"{"versionNumber":"5","updateTime":1700000000000}"#,
        #"{"updateTime":"1700000000000"}"#,
        #"{"updateTime":"Tue, 26 May 2020 10:42:27 GMT"}"#,
        #"{"versionNumber":5.0}"#,
        #"{"versionNumber":"1","versionNumber":"2"}"#,
        #"{"updateUser":{"email":"x@y","email":"z@w"}}"#,
        // What both must refuse.
        #"{"versionNumber":"abc"}"#,
        #"{"versionNumber":5.5}"#,
        #"{"versionNumber":true}"#,
        #"{"updateTime":"yesterday"}"#,
        #"{"updateUser":"someone"}"#,
        #"{"isLegacy":"yes"}"#,
        #"{"versionNumber":"1"} trailing"#,
        #"{"versionNumber":"1""#,
        #"[1,2]"#,
        #"null"#,
        "",
        // Nesting at JSONDecoder's limit of 512 objects and arrays, and one past it.
        #"{"x":"# + String(repeating: "[", count: 510) + String(repeating: "]", count: 510) + "}",
        #"{"x":"# + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}",
        #"{"x":"# + String(repeating: "[", count: 512) + String(repeating: "]", count: 512) + "}",
        #"{"updateUser":{"x":"# + String(repeating: "[", count: 510) + String(repeating: "]", count: 510) + "}}",
        #"{"updateUser":{"x":"# + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}}",
    ]

    @Test("each payload gives the handler JSONDecoder's version, or fails as JSONDecoder does", arguments: payloads)
    func sameAsJSONDecoder(payload: String) async throws {
        let data = Data(payload.utf8)
        let expected = try? JSONDecoder().decode(TemplateVersion.self, from: data)
        let received = Mutex<TemplateVersion?>(nil)
        let function = RemoteConfig.onUpdate { version, _ in received.withLock { $0 = version } }
        let event = CloudEvent(
            id: "e1", source: "//firebaseremoteconfig.googleapis.com/projects/demo",
            type: FirebaseEventType.remoteConfigUpdated, data: data
        )
        let context = EventContext(functionName: "f", event: event, logger: Logger(label: "test"))
        if let expected {
            try await function.invoke(event, context: context)
            #expect(received.withLock { $0 } == expected)
        } else {
            await #expect(throws: EventPayloadError.self) { try await function.invoke(event, context: context) }
            #expect(received.withLock { $0 } == nil)
        }
    }

    @Test("the reader's values are the ones the payload holds")
    func values() async throws {
        let received = Mutex<TemplateVersion?>(nil)
        let function = RemoteConfig.onUpdate { version, _ in received.withLock { $0 = version } }
        let event = CloudEvent(
            id: "e1", source: "//firebaseremoteconfig.googleapis.com/projects/demo",
            type: FirebaseEventType.remoteConfigUpdated, data: Data(Self.payloads[1].utf8)
        )
        try await function.invoke(event, context: EventContext(functionName: "f", event: event, logger: Logger(label: "t")))
        let version = try #require(received.withLock { $0 })
        #expect(version.versionNumber == 7)
        #expect(version.rollbackSource == 75_404_139)
        #expect(version.updateType == .rollback)
        #expect(version.updateOrigin == .console)
        #expect(version.updateUser == RemoteConfigUser(name: "Ut ad aute", email: "test@nowhere.com",
            imageUrl: "http://google.com/favicon.ico"))
        #expect(version.updateTime == RFC3339Timestamp.date(from: "2020-11-16T16:35:33.569229Z"))
        #expect(version.isLegacy == false)
    }

    @Test("an updated event always has the fields the Python SDK reads without checking: description, origin, type")
    func completeForPython() throws {
        let event = CloudEvent.remoteConfigUpdated(TemplateVersion(versionNumber: 3), project: "demo")
        let data = try JSONValue(parsing: try #require(event.data))
        #expect(data["description"] == "")
        #expect(data["updateOrigin"] == "REMOTE_CONFIG_UPDATE_ORIGIN_UNSPECIFIED")
        #expect(data["updateType"] == "REMOTE_CONFIG_UPDATE_TYPE_UNSPECIFIED")
        #expect(data["updateUser"] == ["name": "", "email": "", "imageUrl": ""])
        #expect(data["versionNumber"] == "3")
        // What a publish gives is kept.
        var given = TemplateVersion(versionNumber: 4)
        given.description = "d"
        given.updateType = .rollback
        let kept = try JSONValue(parsing: try #require(CloudEvent.remoteConfigUpdated(given, project: "demo").data))
        #expect(kept["description"] == "d" && kept["updateType"] == "ROLLBACK")
    }
}
