import FirebaseEmulator
import Foundation
import CloudFunctions
import Testing

@Suite("AuthUserValidation")
struct AuthUserValidationTests {
    @Test("lower-cases valid emails")
    func canonicalEmail() throws {
        #expect(try AuthUserValidation.canonicalEmail("Alice@Example.COM") == "alice@example.com")
        #expect(try AuthUserValidation.canonicalEmail("a@b") == "a@b")
    }

    @Test(
        "rejects malformed emails with INVALID_EMAIL",
        arguments: ["alice", "@example.com", "alice@", "a@b@c", "a b@c.d"]
    )
    func invalidEmail(email: String) {
        #expect(AuthFixtures.message { _ = try AuthUserValidation.canonicalEmail(email) } == "INVALID_EMAIL")
    }

    @Test("rejects an empty email with MISSING_EMAIL")
    func missingEmail() {
        #expect(AuthFixtures.message { _ = try AuthUserValidation.canonicalEmail("") } == "MISSING_EMAIL")
    }

    @Test("checks password length")
    func passwords() throws {
        try AuthUserValidation.validatePassword("secret")
        #expect(AuthFixtures.message { try AuthUserValidation.validatePassword("12345") }
            == "WEAK_PASSWORD : Password should be at least 6 characters")
        #expect(AuthFixtures.message { try AuthUserValidation.validatePassword("") } == "MISSING_PASSWORD")
        let error = #expect(throws: ServiceError.self) { try AuthUserValidation.validatePassword("abc") }
        #expect(error?.status == "INVALID_ARGUMENT")
        #expect(error?.httpStatus == 400)
    }

    @Test("accepts E.164 phone numbers", arguments: ["+15555550100", "+441234567890", "+123"])
    func validPhone(phone: String) throws {
        try AuthUserValidation.validatePhoneNumber(phone)
    }

    @Test(
        "rejects other phone numbers",
        arguments: ["15555550100", "+0123456", "+1 555 555 0100", "+1234567890123456", "+", "+1a"]
    )
    func invalidPhone(phone: String) {
        #expect(AuthFixtures.message { try AuthUserValidation.validatePhoneNumber(phone) }
            == "INVALID_PHONE_NUMBER : Invalid format.")
    }

    @Test("limits user ids to 1...128 characters")
    func localIds() throws {
        try AuthUserValidation.validateLocalId(String(repeating: "u", count: 128))
        #expect(AuthFixtures.message { try AuthUserValidation.validateLocalId("") } == "MISSING_LOCAL_ID")
        #expect(AuthFixtures.message { try AuthUserValidation.validateLocalId(String(repeating: "u", count: 129)) }
            == "INVALID_LOCAL_ID : User ID must be at most 128 characters")
    }

    @Test("checks photo URLs")
    func photoURLs() throws {
        try AuthUserValidation.validatePhotoURL("https://example.com/me.png")
        for bad in ["not a url", "example.com/me.png", "https://", ""] {
            #expect(AuthFixtures.message { try AuthUserValidation.validatePhotoURL(bad) } == "INVALID_PHOTO_URL")
        }
    }
}

@Suite("AuthCustomClaims")
struct AuthCustomClaimsTests {
    @Test("parses a claims object, and empty text as no claims")
    func parses() throws {
        let claims = try AuthCustomClaims.parse(#"{"admin":true,"level":3}"#, context: .update)
        #expect(claims == ["admin": true, "level": 3])
        #expect(try AuthCustomClaims.parse("{}", context: .update) == [:])
        #expect(try AuthCustomClaims.parse("", context: .update) == [:])
    }

    @Test("uses the update codes", arguments: [
        ("[1]", "INVALID_CLAIMS"), ("not json", "INVALID_CLAIMS"), ("null", "INVALID_CLAIMS"), ("3", "INVALID_CLAIMS"),
        (#"{"sub":"x"}"#, "FORBIDDEN_CLAIM : sub"), (#"{"a":1,"firebase":{}}"#, "FORBIDDEN_CLAIM : firebase"),
        (#"{"auth_time":1}"#, "FORBIDDEN_CLAIM : auth_time"),
    ])
    func updateErrors(text: String, message: String) {
        #expect(AuthFixtures.message { _ = try AuthCustomClaims.parse(text, context: .update) } == message)
    }

    @Test("uses the import sentences", arguments: [
        ("[1]", "Invalid custom claims provided."),
        (#"{"iss":"x"}"#, "Custom claims provided include a reserved claim."),
    ])
    func importErrors(text: String, message: String) {
        #expect(AuthFixtures.message { _ = try AuthCustomClaims.parse(text, context: .import) } == message)
    }

    @Test("allows 1000 characters and rejects 1001")
    func size() throws {
        let fits = #"{"k":""# + String(repeating: "x", count: 1000 - 8) + #""}"#
        #expect(fits.count == 1000)
        _ = try AuthCustomClaims.parse(fits, context: .update)
        let tooLong = #"{"k":""# + String(repeating: "x", count: 1001 - 8) + #""}"#
        #expect(
            AuthFixtures.message { _ = try AuthCustomClaims.parse(tooLong, context: .update) } == "CLAIMS_TOO_LARGE"
        )
        #expect(AuthFixtures.message { _ = try AuthCustomClaims.parse(tooLong, context: .import) }
            == "Custom claims provided are too large.")
        let big = JSONValue.object(["k": .string(String(repeating: "x", count: 1000))])
        #expect(AuthFixtures.message { _ = try AuthCustomClaims.validate(big, context: .update) } == "CLAIMS_TOO_LARGE")
    }

    @Test("lists the reserved names of the reference")
    func reserved() {
        #expect(Set(AuthCustomClaims.reservedNames) == [
            "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time",
            "firebase", "at_hash", "c_hash",
        ])
    }
}
