import CloudEvents
import Foundation
import Testing

@Suite("CloudEvents HTTP binding")
struct CloudEventHTTPBindingTests {
    let event = CloudEvent(
        id: "bench-db-0001",
        source: "//firebasedatabase.googleapis.com/projects/_/locations/us-central1/instances/bench",
        type: "google.firebase.database.ref.v1.written",
        time: RFC3339Timestamp.date(from: "2025-01-02T03:04:05.678Z"),
        subject: "refs/items/abc",
        dataContentType: "application/json",
        extensions: ["instance": "bench", "ref": "items/abc", "authtype": "admin"],
        data: Data(#"{"data":{"name":"old"},"delta":{"count":2}}"#.utf8)
    )

    @Test("binary mode puts attributes in ce- headers and data in the body")
    func binaryMode() throws {
        let message = event.binaryHTTPMessage()
        #expect(message[header: "ce-id"] == "bench-db-0001")
        #expect(message[header: "CE-TIME"] == "2025-01-02T03:04:05.678Z")
        #expect(message[header: "ce-ref"] == "items/abc")
        #expect(message[header: "content-type"] == "application/json")
        #expect(message.body == event.data)
        #expect(try CloudEvent(httpMessage: message) == event)
    }

    @Test("binary mode labels bytes that are not JSON as bytes when the event gives no datacontenttype")
    func binaryModeBytes() throws {
        let bytes = try CloudEvent(jsonFormat: Data(#"{"specversion":"1.0","id":"1","source":"/s","type":"t","data_base64":"AAEC"}"#.utf8))
        let message = bytes.binaryHTTPMessage()
        #expect(message[header: "content-type"] == "application/octet-stream")
        #expect(try CloudEvent(httpMessage: message).data == Data([0, 1, 2]))
    }

    @Test("binary mode takes a ce-datacontenttype header (as Google's Firestore emulator sends) only without Content-Type")
    func binaryModeContentTypeHeader() throws {
        let headers = [("ce-specversion", "1.0"), ("ce-id", "1"), ("ce-source", "/s"), ("ce-type", "t"),
            ("ce-datacontenttype", "application/protobuf")]
        let both = try CloudEvent(httpMessage: CloudEventHTTPMessage(
            headers: headers + [("Content-Type", "application/x-protobuf")], body: Data([1])))
        #expect(both.dataContentType == "application/x-protobuf")
        #expect(both.extensions["datacontenttype"] == nil)
        let alone = try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: headers, body: Data([1])))
        #expect(alone.dataContentType == "application/protobuf")
        #expect(throws: CloudEventError.self) {
            try CloudEvent(httpMessage: CloudEventHTTPMessage(
                headers: headers + [("ce-datacontenttype", "text/plain")], body: Data([1])))
        }
    }

    @Test("structured mode carries the JSON format")
    func structuredMode() throws {
        let message = event.structuredHTTPMessage()
        #expect(message[header: "Content-Type"]?.hasPrefix("application/cloudevents+json") == true)
        #expect(try CloudEvent(httpMessage: message) == event)
    }

    @Test("percent-encodes header values that HTTP cannot carry")
    func percentEncoding() throws {
        var odd = event
        odd.subject = "refs/naïve path/100%"
        let message = odd.binaryHTTPMessage()
        #expect(message[header: "ce-subject"] == "refs/na%C3%AFve%20path/100%25")
        #expect(try CloudEvent(httpMessage: message).subject == "refs/naïve path/100%")
    }

    @Test("names the missing header of a binary-mode request")
    func missingHeaders() {
        let headers: [(String, String)] = [("ce-specversion", "1.0"), ("ce-id", "1"), ("ce-type", "t")]
        #expect {
            try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: headers, body: Data()))
        } throws: { ($0 as? CloudEventError)?.attribute == "source" }
        #expect {
            try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: [("content-type", "text/plain")], body: Data()))
        } throws: { ($0 as? CloudEventError)?.code == .missingAttribute }
    }

    @Test("rejects a body that is not JSON when the content type says JSON")
    func nonJSONBody() {
        var message = event.binaryHTTPMessage()
        message.body = Data("not json".utf8)
        #expect {
            try CloudEvent(httpMessage: message)
        } throws: { ($0 as? CloudEventError)?.code == .invalidData }
    }

    @Test("rejects a batch where one event is expected")
    func batchRejected() {
        let message = CloudEventHTTPMessage(
            headers: [("content-type", "application/cloudevents-batch+json")],
            body: CloudEvent.encodeBatch(jsonFormat: [event])
        )
        #expect {
            try CloudEvent(httpMessage: message)
        } throws: { ($0 as? CloudEventError)?.code == .unsupportedContentType }
    }
}
