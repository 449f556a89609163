import Foundation
import CloudFunctions
import Testing

@testable import FirebaseEmulator

@Suite("DatabaseQuery parameters")
struct DatabaseQueryTests {
    @Test("parses what firebase-admin sends")
    func adminRequests() throws {
        let byAge = try DatabaseQuery(parameters: [
            "endAt": "30", "limitToFirst": "2", "orderBy": "\"age\"", "startAt": "18", "ns": "demo",
        ])
        #expect(byAge.ordering == .child(try DatabasePath("age")))
        #expect(byAge.start == .init(value: 18, inclusive: true))
        #expect(byAge.end == .init(value: 30, inclusive: true))
        #expect(byAge.limitToFirst == 2)
        let byKey = try DatabaseQuery(parameters: ["equalTo": "\"u1\"", "orderBy": "\"$key\""])
        #expect(byKey.ordering == .key)
        #expect(byKey.start == .init(value: "u1", inclusive: true))
        #expect(byKey.end == byKey.start)
        let byValue = try DatabaseQuery(parameters: ["limitToLast": "3", "orderBy": "\"$value\""])
        #expect(byValue.ordering == .value)
        #expect(byValue.limitToLast == 3)
        #expect(try DatabaseQuery(parameters: ["orderBy": "\"$priority\""]).ordering == .priority)
        #expect(try DatabaseQuery(parameters: ["orderBy": "\"address/city\""]).ordering
            == .child(try DatabasePath("address/city")))
    }

    @Test("parses exclusive bounds and null, boolean and string values")
    func exclusiveBounds() throws {
        let query = try DatabaseQuery(parameters: ["orderBy": "\"$value\"", "startAfter": "null", "endBefore": "\"m\""])
        #expect(query.start == .init(value: nil, inclusive: false))
        #expect(query.end == .init(value: "m", inclusive: false))
        let flags = try DatabaseQuery(parameters: ["orderBy": "\"done\"", "equalTo": "true"])
        #expect(flags.start?.value == true)
    }

    @Test("has no effect without parameters and ignores unrelated ones")
    func plain() throws {
        #expect(try DatabaseQuery(parameters: [:]).isPlainRead)
        #expect(try DatabaseQuery(parameters: ["print": "pretty", "ns": "x", "shallow": "false"]).isPlainRead)
        #expect(try DatabaseQuery(parameters: ["shallow": "true"]).shallow)
    }

    @Test("reports the Realtime Database error texts", arguments: [
        (["limitToFirst": "1"], "orderBy must be defined when other query parameters are defined"),
        (["startAt": "1"], "orderBy must be defined when other query parameters are defined"),
        (["orderBy": "age"], "orderBy must be a valid JSON encoded path"),
        (["orderBy": "3"], "orderBy must be a valid JSON encoded path"),
        (["orderBy": "\"a.b\""], "orderBy must be a valid JSON encoded path"),
        (["orderBy": "\"$other\""], "orderBy must be a valid JSON encoded path"),
        (["orderBy": "\"\""], "orderBy must be a valid JSON encoded path"),
        (["orderBy": "\"$key\"", "startAt": "1"], "Provided key index type is invalid, must be string"),
        (["orderBy": "\"$key\"", "equalTo": "true"], "Provided key index type is invalid, must be string"),
        (["orderBy": "\"a\"", "startAt": "abc"], "Constraint index field must be a JSON primitive"),
        (["orderBy": "\"a\"", "startAt": "{\"x\":1}"], "Constraint index field must be a JSON primitive"),
        (["orderBy": "\"a\"", "limitToFirst": "-1"], "limitToFirst must be a non-negative integer"),
        (["orderBy": "\"a\"", "limitToLast": "two"], "limitToLast must be a non-negative integer"),
        (["orderBy": "\"a\"", "limitToFirst": "1", "limitToLast": "1"],
         "limitToFirst and limitToLast cannot both be defined"),
        (["shallow": "true", "orderBy": "\"$key\""], "shallow cannot be combined with other query parameters"),
        (["shallow": "true", "limitToFirst": "1"], "shallow cannot be combined with other query parameters"),
        (["shallow": "yes"], "shallow must be true or false"),
        (["orderBy": "\"a\"", "equalTo": "1", "startAt": "0"],
         "equalTo cannot be combined with startAt, startAfter, endAt, or endBefore"),
        (["orderBy": "\"a\"", "startAt": "1", "startAfter": "0"], "startAt and startAfter cannot both be defined"),
        (["orderBy": "\"a\"", "endAt": "1", "endBefore": "0"], "endAt and endBefore cannot both be defined"),
    ])
    func errors(parameters: [String: String], message: String) {
        #expect(throws: ServiceError(.invalidArgument, message)) { try DatabaseQuery(parameters: parameters) }
    }
}
