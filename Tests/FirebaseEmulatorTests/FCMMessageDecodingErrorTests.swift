import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("FCM message decoding errors")
struct FCMMessageDecodingErrorTests {
    private func sendError(_ body: String) -> ServiceError? {
        FCMTestFixtures.error { () throws(ServiceError) in _ = try FCMSendRequest.parse(Data(body.utf8)) }
    }

    @Test("an unknown field inside the message is rejected like Google's JSON transcoder")
    func unknownNestedField() throws {
        let error = try #require(sendError(#"{"message":{"topic":"a","android":{"colapse_key":"x"}}}"#))
        #expect(error.status == "INVALID_ARGUMENT")
        #expect(error.httpStatus == 400)
        #expect(error.message
            == "Invalid JSON payload received. Unknown name \"colapse_key\" at 'message.android': Cannot find field.")
        #expect(FCMTestFixtures.fcmErrorCode(error) == "INVALID_ARGUMENT")
        #expect(FCMTestFixtures.violatedField(error) == "message.android")
    }

    @Test("an unknown top-level field is rejected without a location")
    func unknownTopLevelField() throws {
        let error = try #require(sendError(#"{"message":{"topic":"a"},"dry_run":true}"#))
        #expect(error.message == "Invalid JSON payload received. Unknown name \"dry_run\": Cannot find field.")
    }

    @Test("a non-string data value names the map entry")
    func nonStringData() throws {
        let error = try #require(sendError(#"{"message":{"topic":"a","data":{"a":"x","b":1}}}"#))
        #expect(error.message == "Invalid value at 'message.data[1].value' (TYPE_STRING)")
        #expect(FCMTestFixtures.violatedField(error) == "message.data[1].value")
    }

    @Test("setting two targets is a oneof error")
    func twoTargets() throws {
        let error = try #require(sendError(#"{"message":{"topic":"a","condition":"'a' in topics"}}"#))
        #expect(error.message.contains("oneof field 'target' is already set"))
    }

    @Test("malformed JSON is an invalid argument")
    func malformedJSON() throws {
        let error = try #require(sendError("{"))
        #expect(error.message.hasPrefix("Invalid JSON payload received."))
    }

    @Test("wrong value types are rejected", arguments: [
        (#"{"message":{"token":5}}"#, "Invalid value at 'message.token' (TYPE_STRING)"),
        (#"{"message":{"topic":"a","android":{"priority":"urgent"}}}"#,
         "Invalid value at 'message.android.priority' "
            + "(type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority)"),
        (#"{"message":{"topic":"a","android":{"ttl":"10"}}}"#,
         "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration)"),
        (#"{"message":{"topic":"a","android":"x"}}"#,
         "Invalid value at 'message.android' (type.googleapis.com/google.firebase.fcm.v1.AndroidConfig)"),
        (#"{"message":{"topic":"a","apns":{"payload":[1]}}}"#,
         "Invalid value at 'message.apns.payload' (type.googleapis.com/google.protobuf.Struct)"),
        (#"{"message":{"topic":"a"},"validate_only":"yes"}"#, "Invalid value at 'validateOnly' (TYPE_BOOL)"),
        (#"{"message":{"topic":"a","android":{"notification":{"body_loc_args":"x"}}}}"#,
         "Invalid value at 'message.android.notification.bodyLocArgs' (TYPE_STRING)"),
        ("[]", "Invalid JSON payload received. Expected an object."),
    ])
    func wrongTypes(body: String, message: String) throws {
        let error = try #require(sendError(body))
        #expect(error.message == message)
        #expect(error.status == "INVALID_ARGUMENT")
    }

    @Test("the same field in both spellings is rejected")
    func duplicateSpelling() throws {
        let error = try #require(sendError(#"{"message":{"topic":"a"},"validate_only":true,"validateOnly":false}"#))
        #expect(error.message.contains("Duplicate field"))
    }

    @Test("Decodable conformance surfaces the ServiceError")
    func decodableError() {
        #expect(throws: ServiceError.self) {
            try JSONDecoder().decode(FCMSendRequest.self, from: Data(#"{"message":{"bogus":1}}"#.utf8))
        }
    }
}
