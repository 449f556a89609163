import CloudEvents
import Foundation
import Testing

@Suite("CloudEvents JSON format")
struct CloudEventJSONFormatTests {
    @Test("reads every context attribute, extensions and JSON data exactly")
    func readsAllAttributes() throws {
        let text = """
            {"specversion":"1.0","id":"e1","source":"//firebasedatabase.googleapis.com/projects/_/instances/db",
             "type":"google.firebase.database.ref.v1.written","time":"2020-09-29T11:32:00.123456Z",
             "subject":"refs/a/b","datacontenttype":"application/json","dataschema":"https://example.com/s",
             "instance":"db","sequence":42,"sampled":true,"data":{"data":null,"delta":{"x": 1.50}}}
            """
        let event = try CloudEvent(jsonFormat: Data(text.utf8))
        #expect(event.id == "e1")
        #expect(event.type == "google.firebase.database.ref.v1.written")
        #expect(event.subject == "refs/a/b")
        #expect(event.dataSchema == "https://example.com/s")
        #expect(event.extensions == ["instance": "db", "sequence": 42, "sampled": true])
        #expect(event.time == RFC3339Timestamp.date(from: "2020-09-29T11:32:00.123456Z"))
        #expect(String(decoding: event.data!, as: UTF8.self) == #"{"data":null,"delta":{"x": 1.50}}"#)
    }

    @Test("writes what it reads")
    func roundTrips() throws {
        let event = CloudEvent(
            id: "abc",
            source: "/s",
            type: "t",
            time: Date(timeIntervalSince1970: 1_600_000_000.25),
            subject: "sub \"quoted\"",
            dataContentType: "application/json",
            extensions: ["n": 7, "flag": false, "text": "ünï"],
            data: Data(#"{"k":[1,2,{"z":null}]}"#.utf8)
        )
        let decoded = try CloudEvent(jsonFormat: event.jsonFormat())
        #expect(decoded == event)
    }

    @Test("keeps text data as a string and binary data as base64")
    func nonJSONData() throws {
        let text = CloudEvent(id: "1", source: "/s", type: "t", dataContentType: "text/plain", data: Data("héllo".utf8))
        let json = try #require(try JSONSerialization.jsonObject(with: text.jsonFormat()) as? [String: Any])
        #expect(json["data"] as? String == "héllo")
        #expect(try CloudEvent(jsonFormat: text.jsonFormat()) == text)

        let bytes = CloudEvent(
            id: "2",
            source: "/s",
            type: "t",
            dataContentType: "application/octet-stream",
            data: Data([0, 1, 2, 255])
        )
        let binaryJSON = try #require(try JSONSerialization.jsonObject(with: bytes.jsonFormat()) as? [String: Any])
        #expect(binaryJSON["data_base64"] as? String == "AAEC/w==")
        #expect(try CloudEvent(jsonFormat: bytes.jsonFormat()) == bytes)
    }

    @Test(
        "names what is wrong with a malformed event",
        arguments: [
            (#"{"id":"1","source":"/s","type":"t"}"#, CloudEventError.Code.missingAttribute, "specversion"),
            (#"{"specversion":"0.3","id":"1","source":"/s","type":"t"}"#, .unsupportedSpecVersion, "specversion"),
            (#"{"specversion":"1.0","source":"/s","type":"t"}"#, .missingAttribute, "id"),
            (#"{"specversion":"1.0","id":"1","type":"t"}"#, .missingAttribute, "source"),
            (#"{"specversion":"1.0","id":"1","source":"/s"}"#, .missingAttribute, "type"),
            (#"{"specversion":"1.0","id":"","source":"/s","type":"t"}"#, .missingAttribute, "id"),
            (#"{"specversion":"1.0","id":"1","source":"/s","type":"t","time":"yesterday"}"#, .invalidTime, "time"),
            (#"{"specversion":"1.0","id":1,"source":"/s","type":"t"}"#, .invalidAttribute, "id"),
            (#"{"specversion":"1.0","id":"1","source":"/s","type":"t","Bad-Name":"x"}"#, .invalidAttribute, "Bad-Name"),
            (#"{"specversion":"1.0","id":"1","source":"/s","type":"t","ext":{"a":1}}"#, .invalidAttribute, "ext"),
            (#"{"specversion":"1.0","id":"1","source":"/s","type":"t","data_base64":"%%"}"#, .invalidData, "data_base64"),
        ]
    )
    func rejectsMalformedEvents(json: String, code: CloudEventError.Code, attribute: String) {
        #expect {
            try CloudEvent(jsonFormat: Data(json.utf8))
        } throws: { error in
            guard let error = error as? CloudEventError else { return false }
            return error.code == code && error.attribute == attribute
        }
    }

    @Test("rejects text that is not a JSON object", arguments: ["", "[]", "{", #"{"id":"1",}"#, "{} x", "null"])
    func rejectsNonJSON(text: String) {
        #expect(throws: CloudEventError.self) { try CloudEvent(jsonFormat: Data(text.utf8)) }
    }

    @Test("reads strings of any text, escaped or not, and refuses bytes that are not UTF-8")
    func stringText() throws {
        let head = #"{"specversion":"1.0","id":"1","source":"/s","type":"t","subject":""#
        let text = "ascii, h\u{E9}llo, \u{1F600} and \\\"quoted\\\" \\u00e9"
        let event = try CloudEvent(jsonFormat: Data((head + text + #""}"#).utf8))
        #expect(event.subject == "ascii, h\u{E9}llo, \u{1F600} and \"quoted\" \u{E9}")
        for bad: [UInt8] in [[0xFF], [0xC3], [0x61, 0xE9, 0x62], [0xED, 0xA0, 0x80]] {
            let bytes = Array(head.utf8) + bad + Array(#""}"#.utf8)
            #expect(throws: CloudEventError.self) { try CloudEvent(jsonFormat: Data(bytes)) }
        }
    }

    @Test("an event keeps its JSON encoding until it changes, and a batch adds each event's attribute to it")
    func keptEncoding() throws {
        func make() -> CloudEvent {
            CloudEvent(id: "1", source: "/s", type: "t", time: Date(timeIntervalSince1970: 1_700_000_000),
                extensions: ["ref": "a/b"], data: Data(#"{"x":[1,2]}"#.utf8))
        }
        var event = make()
        let kept = event.keepJSONFormat()
        // What the event kept is its encoding, as an event that kept nothing encodes it.
        #expect(Data(kept) == make().jsonFormat())
        let copy = event
        #expect(copy.jsonFormat() == Data(kept))
        let replayed = CloudEvent(id: "2", source: "/s", type: "t", extensions: ["attempt": 7])
        let batch = CloudEvent.encodeBatch(jsonFormat: [
            (event, [("attempt", .integer(3)), ("deliverytraceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")]),
            (replayed, [("attempt", .integer(4))]),
        ])
        var expected = [event, replayed]
        expected[0].extensions["attempt"] = 3
        expected[0].extensions["deliverytraceparent"] = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        expected[1].extensions["attempt"] = 4
        #expect(try CloudEvent.decodeBatch(jsonFormat: batch) == expected)
        event.subject = "changed"
        #expect(try CloudEvent(jsonFormat: event.jsonFormat()).subject == "changed")
        #expect(try CloudEvent(jsonFormat: copy.jsonFormat()).subject == nil)
        let again = CloudEvent.encodeBatch(jsonFormat: [(event, [("attempt", .integer(1))])])
        #expect(try CloudEvent.decodeBatch(jsonFormat: again).first?.subject == "changed")
    }

    @Test("rejects both data and data_base64")
    func rejectsBothDataForms() {
        let text = #"{"specversion":"1.0","id":"1","source":"/s","type":"t","data":1,"data_base64":"AA=="}"#
        #expect(throws: CloudEventError.self) { try CloudEvent(jsonFormat: Data(text.utf8)) }
    }

    @Test("reads and writes batches")
    func batches() throws {
        let events = (1...3).map { CloudEvent(id: "\($0)", source: "/s", type: "t", data: Data("\($0)".utf8)) }
        let data = CloudEvent.encodeBatch(jsonFormat: events)
        #expect(try CloudEvent.decodeBatch(jsonFormat: data) == events)
        #expect(try CloudEvent.decodeBatch(jsonFormat: Data("[]".utf8)).isEmpty)
    }
}
