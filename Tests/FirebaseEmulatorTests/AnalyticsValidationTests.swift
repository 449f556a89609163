import Foundation
import FirebaseEmulator
import CloudFunctions
import Testing

@Suite("Analytics validation")
struct AnalyticsValidationTests {
    private let instance = "0123456789abcdef0123456789abcdef"

    private func event(_ name: String, _ params: [String: JSONValue] = [:]) -> AnalyticsEvent {
        AnalyticsEvent(
            name: name, params: params, timestamp: Date(timeIntervalSince1970: 1000), appInstanceId: instance)
    }

    private func failure(_ event: AnalyticsEvent, seen: Set<String> = []) -> ServiceError? {
        FCMTestFixtures.error { () throws(ServiceError) in
            try AnalyticsValidation.validate(event, seenEventNames: seen, field: "events[0]")
        }
    }

    @Test("valid events pass", arguments: ["a", "select_content", "Level2_up", String(repeating: "e", count: 40)])
    func validNames(name: String) throws {
        try AnalyticsValidation.validate(event(name, ["item": "x", "count": 3, "price": 9.99]), seenEventNames: [])
    }

    @Test("bad event names are rejected naming the field", arguments: [
        ("", "it must be 1 to 40 characters long"),
        (String(repeating: "e", count: 41), "it must be 1 to 40 characters long"),
        ("1abc", "it must start with a letter and contain only letters, digits and underscores"),
        ("_abc", "it must start with a letter and contain only letters, digits and underscores"),
        ("a-b", "it must start with a letter and contain only letters, digits and underscores"),
        ("firebase_x", "the prefix \"firebase_\" is reserved"), ("google_x", "the prefix \"google_\" is reserved"),
        ("ga_x", "the prefix \"ga_\" is reserved"), ("session_start", "the name is reserved"),
        ("error", "the name is reserved"), ("first_open", "the name is reserved"),
    ])
    func badNames(name: String, problem: String) throws {
        let error = try #require(failure(event(name)))
        #expect(error.status == "INVALID_ARGUMENT")
        #expect(error.message == "Invalid event name \"\(name)\" at 'events[0].name': \(problem).")
    }

    @Test("a 501st distinct event name is rejected, a repeated one is not")
    func distinctNames() throws {
        let seen = Set((0..<500).map { "event\($0)" })
        #expect(failure(event("new_event"), seen: seen)?.message.contains("at most 500") == true)
        #expect(failure(event("event7"), seen: seen) == nil)
    }

    @Test("parameter rules are enforced")
    func parameters() throws {
        let many = Dictionary(uniqueKeysWithValues: (0..<26).map { ("p\($0)", JSONValue.number(1)) })
        #expect(failure(event("e", many))?.message == "Too many parameters at 'events[0].params': 26, the limit is 25.")
        #expect(failure(event("e", ["firebase_x": 1]))?.message.contains("'events[0].params.firebase_x'") == true)
        #expect(failure(event("e", ["9x": 1])) != nil)
        #expect(failure(event("e", ["v": .string(String(repeating: "x", count: 101))]))?.message
            == "Parameter value too long at 'events[0].params.v': 101 characters, the limit is 100.")
        #expect(failure(event("e", ["v": .string(String(repeating: "x", count: 100))])) == nil)
        for bad: JSONValue in [true, nil, [1], ["a": 1]] {
            #expect(failure(event("e", ["v": bad]))?.message.contains("only strings, integers and doubles") == true)
        }
    }

    @Test("user property rules are enforced")
    func userProperties() throws {
        try AnalyticsValidation.validateUserProperty(name: "favorite_food", value: "pizza")
        try AnalyticsValidation.validateUserProperty(name: "favorite_food", value: nil)
        for name in ["first_open_time", "user_id", "firebase_x", String(repeating: "u", count: 25), "9a"] {
            let error = FCMTestFixtures.error { () throws(ServiceError) in
                try AnalyticsValidation.validateUserProperty(name: name, value: "v")
            }
            #expect(error?.message.hasPrefix("Invalid user property name \"\(name)\"") == true)
        }
        let long = FCMTestFixtures.error { () throws(ServiceError) in
            try AnalyticsValidation.validateUserProperty(name: "p", value: String(repeating: "v", count: 37))
        }
        #expect(long?.message == "User property value too long at 'user_properties.p': 37 characters, the limit is 36.")
        let existing = Set((0..<25).map { "p\($0)" })
        let tooMany = FCMTestFixtures.error { () throws(ServiceError) in
            try AnalyticsValidation.validateUserProperties(["extra": "v"], existingNames: existing)
        }
        #expect(tooMany?.message.contains("limit is 25 per project") == true)
        try AnalyticsValidation.validateUserProperties(["p1": "v", "extra": nil], existingNames: existing)
    }
}
