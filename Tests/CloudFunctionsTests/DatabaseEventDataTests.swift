import CloudEvents
import CloudFunctions
import Foundation
import Logging
import Synchronization
import Testing

/// Database functions read the event's data with the strict JSON parser, not `Decodable`, and
/// must hand the handler the same change `JSONDecoder` makes of those bytes, or fail as it does.
/// Where they differ, the parser does what `JSON.parse` does in the Node.js runtime: it refuses a
/// trailing comma and a byte order mark, and the last of a repeated member wins.
@Suite("Database functions read event data as JSONDecoder does")
struct DatabaseEventDataTests {
    static let payloads: [String] = [
        // What the emulator and Firebase send.
        #"{"data":null,"delta":{"playerName":"p1","score":5,"cheatMode":false}}"#,
        #"{"data":{"score":5,"tags":["a","b"]},"delta":{"score":7,"tags":null}}"#,
        #"{"data":"text","delta":null}"#,
        #"{"data":1.5e3,"delta":-0.25}"#,
        // Unicode, escapes, white space, big and small numbers, deep values.
        #" { "data" : { "name" : "caf\u00e9 \"q\"\n\ud83d\ude00" } , "delta" : { "name" : "naïve — ü" } } "#,
        #"{"data":{"n":9007199254740993,"m":1e-300,"e":-2.5E+10},"delta":{}}"#,
        #"{"data":null,"delta":"# + String(repeating: "[", count: 500) + String(repeating: "]", count: 500) + "}",
        #"{"delta":{"only":"delta"}}"#,
        // What both must refuse.
        #"{"data":1e400,"delta":null}"#,
        #"{"data":{"a":1},"delta":{"b":2}} trailing"#,
        #"{"data":{"a":1},"delta":"#,
        #"{"data":NaN,"delta":null}"#,
        "",
        "{\"data\":\"\u{FFFD}\",\"delta\":\"\\ud800\"}",
        #"{"data":null,"delta":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}",
        // JSON, but not a change.
        #"[1,2]"#,
        #"{"before":1,"after":2}"#,
        #"null"#,
    ]

    /// Not JSON, though `JSONDecoder` reads it.
    static let strictlyRefused: [String] = [
        #"{"data":[1,2,],"delta":null}"#,
        #"{"data":{"a":1,},"delta":null}"#,
        "\u{FEFF}{\"data\":1,\"delta\":null}",
    ]

    /// Repeated members, where `JSONDecoder` keeps the first and `JSON.parse` the last: the
    /// data the handler gets before the change.
    static let lastMemberWins: [String: JSONValue] = [
        #"{"data":1,"data":2,"delta":null}"#: 2,
        #"{"data":{"a":1,"a":{"b":2}},"delta":null}"#: ["a": ["b": 2]],
    ]

    @Test("each payload gives the handler JSONDecoder's change, or fails as JSONDecoder does",
        arguments: payloads + strictlyRefused + lastMemberWins.keys.sorted())
    func sameAsJSONDecoder(payload: String) async throws {
        let data = Data(payload.utf8)
        if Self.strictlyRefused.contains(payload) {
            #expect((try? JSONDecoder().decode(JSONValue.self, from: data)) != nil, "JSONDecoder reads it")
        }
        let expected = Self.strictlyRefused.contains(payload) ? nil : (try? JSONDecoder().decode(JSONValue.self, from: data)).flatMap { value -> (JSONValue, JSONValue)? in
            guard case .object(let members) = value, members["data"] != nil || members["delta"] != nil else { return nil }
            return (members["data"] ?? .null, members["delta"] ?? .null)
        }
        let received = Mutex<(before: JSONValue, after: JSONValue, path: String?)?>(nil)
        let function = Database.ref("/scores/{scoreId}").onWrite { change, _ in
            received.withLock { $0 = (change.before.val(), change.after.val(), change.after.path) }
        }
        let event = CloudEvent(
            id: "e1", source: "//firebasedatabase.googleapis.com/projects/_/locations/us-central1/instances/demo",
            type: FirebaseEventType.databaseWritten, extensions: ["ref": "scores/s1", "instance": "demo"], data: data
        )
        let context = EventContext(functionName: "f", event: event, params: ["scoreId": "s1"], logger: Logger(label: "test"))
        if let data = Self.lastMemberWins[payload] {
            try await function.invoke(event, context: context)
            #expect(received.withLock { $0 }?.before == data)
        } else if let (data, delta) = expected {
            try await function.invoke(event, context: context)
            let change = try #require(received.withLock { $0 })
            #expect(change.before == data)
            #expect(change.path == "scores/s1")
            // The delta applied to the data is the after state; a null delta deletes.
            if case .null = delta { #expect(change.after == .null) }
        } else {
            await #expect(throws: EventPayloadError.self) { try await function.invoke(event, context: context) }
            #expect(received.withLock { $0 } == nil)
        }
    }
}
