import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("FCM topic management requests")
struct FCMTopicManagementTests {
    private func batchError(_ json: String) throws -> ServiceError? {
        let value = try JSONValue(parsing: json)
        return FCMTestFixtures.error { () throws(ServiceError) in _ = try FCMTopicBatchRequest.parse(value) }
    }

    @Test("the IID batch body decodes with or without the /topics/ prefix")
    func batchDecoding() throws {
        let request = try FCMTopicBatchRequest.parse(JSONValue(parsing:
            #"{"to": "/topics/news", "registration_tokens": ["a", "b"]}"#))
        #expect(request.topic == "news")
        #expect(request.registrationTokens == ["a", "b"])
        let bare = try FCMTopicBatchRequest.parse(JSONValue(parsing: #"{"to":"news","registrationTokens":["a"]}"#))
        #expect(bare.topic == "news")
    }

    @Test("the batch response is index-aligned with the outcomes")
    func batchResponse() throws {
        let response = FCMTopicBatchResponse(results: [.success, .failure(.notFound), .failure(.invalidArgument)])
        #expect(response.jsonValue == (try JSONValue(parsing:
            #"{"results":[{}, {"error":"NOT_FOUND"}, {"error":"INVALID_ARGUMENT"}]}"#)))
        #expect(response.successCount == 1)
        #expect(FCMTopicBatchRequest.outcomeForMalformedToken("nope") == .failure(.invalidArgument))
        #expect(FCMTopicBatchRequest.outcomeForMalformedToken(FCMTestFixtures.token(seed: 1)) == nil)
    }

    @Test("bad batch bodies are whole-request errors", arguments: [
        #"{"registration_tokens":["a"]}"#, #"{"to":"/topics/bad topic","registration_tokens":["a"]}"#,
        #"{"to":"/topics/a"}"#, #"{"to":"/topics/a","registration_tokens":[]}"#,
        #"{"to":"/topics/a","registration_tokens":[1]}"#, "[]",
    ])
    func badBatch(json: String) throws {
        let error = try #require(try batchError(json))
        #expect(error.status == "INVALID_ARGUMENT")
        #expect(FCMTopicBatchRequest.errorBody(for: error) == ["error": "INVALID_ARGUMENT"])
    }

    @Test("1000 tokens are allowed, 1001 are not")
    func batchLimit() throws {
        func body(_ count: Int) -> String {
            let tokens = (0..<count).map { "\"t\($0)\"" }.joined(separator: ",")
            return #"{"to":"/topics/a","registration_tokens":[\#(tokens)]}"#
        }
        #expect(try FCMTopicBatchRequest.parse(JSONValue(parsing: body(1000))).registrationTokens.count == 1000)
        #expect(try batchError(body(1001))?.message == "Too many registration tokens: 1001, the limit is 1000.")
    }

    @Test("the per-token v1 subscribe request reads the token path and topic_name query")
    func v1Subscribe() throws {
        let token = FCMTestFixtures.token(seed: 9)
        let encoded = try #require(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let request = try FCMTopicSubscriptionRequest.subscribe(
            tokenSegment: encoded, query: ["topic_name": "/topics/news"])
        #expect(request == FCMTopicSubscriptionRequest(token: token, topic: "news"))
        #expect(try FCMTopicSubscriptionRequest.topicName(fromQuery: ["topicName": "x"]) == "x")
    }

    @Test("the per-token v1 unsubscribe request reads allow_missing")
    func v1Unsubscribe() throws {
        let token = FCMTestFixtures.token(seed: 10)
        let request = try FCMTopicSubscriptionRequest.unsubscribe(
            tokenSegment: token, topicSegment: "news", query: ["allow_missing": "true"])
        #expect(request.allowMissing)
        #expect(request.topic == "news")
        let error = FCMTestFixtures.error { () throws(ServiceError) in
            _ = try FCMTopicSubscriptionRequest.unsubscribe(
                tokenSegment: token, topicSegment: "news", query: ["allow_missing": "maybe"])
        }
        #expect(error?.status == "INVALID_ARGUMENT")
    }

    @Test("bad per-token requests are invalid arguments", arguments: [
        ("bad-token", ["topic_name": "news"]), (nil, [:]), (nil, ["topic_name": "bad topic"]),
    ] as [(String?, [String: String])])
    func v1Errors(token: String?, query: [String: String]) throws {
        let segment = token ?? FCMTestFixtures.token(seed: 11)
        let error = try #require(FCMTestFixtures.error { () throws(ServiceError) in
            _ = try FCMTopicSubscriptionRequest.subscribe(tokenSegment: segment, query: query)
        })
        #expect(error.status == "INVALID_ARGUMENT")
        #expect(FCMTestFixtures.fcmErrorCode(error) == "INVALID_ARGUMENT")
    }

    @Test("topic error codes map to service errors")
    func errorCodes() {
        #expect(FCMTopicErrorCode.notFound.serviceError.httpStatus == 404)
        #expect(FCMTestFixtures.fcmErrorCode(FCMTopicErrorCode.notFound.serviceError) == "UNREGISTERED")
        #expect(FCMTopicErrorCode.tooManyTopics.serviceError.status == "RESOURCE_EXHAUSTED")
    }
}
