import FirebaseEmulator
import Foundation
import CloudFunctions
import Testing

@Suite("AuthUserImport")
struct AuthUserImportTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000.5)

    func parse(_ request: JSONValue) throws -> AuthUserImport {
        try AuthUserImport(parsing: request, now: now, hasher: AuthFixtures.hasher)
    }

    func requestError(_ request: JSONValue) async -> String? {
        AuthFixtures.message { _ = try parse(request) }
    }

    func bcrypt(_ password: String, prefix: String = "$2b$") throws -> String {
        return prefix + AuthFixtures.hasher.hash(password).dropFirst(4)
    }

    @Test("imports a bcrypt hash given as standard base64, URL-safe base64 or the bare string")
    func hashForms() throws {
        let hash = try bcrypt("hunter22")
        let standard = Data(hash.utf8).base64EncodedString()
        let urlSafe = AuthBase64.urlEncoded(Data(hash.utf8))
        let padded = urlSafe + String(repeating: "=", count: (4 - urlSafe.count % 4) % 4)
        let forms = [standard, urlSafe, padded, hash]
        let users: [JSONValue] = forms.enumerated().map { index, form in
            ["localId": .string("u\(index)"), "passwordHash": .string(form)]
        }
        let result = try parse(["users": .array(users), "hashAlgorithm": "BCRYPT"])
        #expect(result.failures == [])
        #expect(result.users.count == 4)
        for imported in result.users {
            #expect(imported.user.passwordHash == hash)
            #expect(AuthFixtures.hasher.verify("hunter22", against: try #require(imported.user.passwordHash)))
        }
    }

    @Test("maps the Python import_users request")
    func pythonShape() throws {
        let hash = try bcrypt("pw123456", prefix: "$2a$")
        let request: JSONValue = [
            "hashAlgorithm": "BCRYPT",
            "users": [[
                "localId": "abc", "email": "Bob@Example.com", "displayName": "Bob", "createdAt": 1_590_489_747_123,
                "lastLoginAt": "1603537200000", "passwordHash": .string(AuthBase64.urlEncoded(Data(hash.utf8))),
                "providerUserInfo": [["rawId": "fb-1", "providerId": "facebook.com"]],
                "customAttributes": #"{"role":"admin"}"#, "phoneNumber": "+15555550100", "emailVerified": true,
            ]],
        ]
        let user = try #require(try parse(request).users.first?.user)
        #expect(user.localId == "abc")
        #expect(user.email == "bob@example.com")
        #expect(user.emailVerified)
        #expect(user.displayName == "Bob")
        #expect(AuthTimestamp.milliseconds(user.createdAt) == 1_590_489_747_123)
        #expect(user.lastLoginAt.map(AuthTimestamp.milliseconds) == 1_603_537_200_000)
        #expect(user.validSince == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(user.customClaims == ["role": "admin"])
        #expect(user.providerData == [AuthProviderInfo(providerId: "facebook.com", rawId: "fb-1")])
        #expect(user.phoneNumber == "+15555550100")
        #expect(user.passwordHash == hash)
    }

    @Test("hashes rawPassword and defaults createdAt to the upload time")
    func rawPassword() throws {
        let result = try parse(["users": [["localId": "r", "rawPassword": "plain-text!", "createdAt": "soon"]]])
        let user = try #require(result.users.first?.user)
        let hash = try #require(user.passwordHash)
        #expect(hash.hasPrefix("$2b$04$"))
        #expect(AuthFixtures.hasher.verify("plain-text!", against: hash))
        #expect(user.createdAt == now)
        #expect(!String(describing: user).contains("plain-text!"))
    }

    @Test("reports per-user failures with the emulator's sentences")
    func perUserFailures() throws {
        let tooBigClaims = JSONValue.string(#"{"k":""# + String(repeating: "x", count: 1000) + #""}"#)
        let users: [JSONValue] = [
            ["email": "no-id@example.com"],
            ["localId": "bad-email", "email": "nope"],
            ["localId": "bad-phone", "phoneNumber": "555"],
            ["localId": "bad-claims", "customAttributes": "[1]"],
            ["localId": "big-claims", "customAttributes": tooBigClaims],
            ["localId": "reserved", "customAttributes": #"{"exp":1}"#],
            ["localId": "bad-hash", "passwordHash": "bm90IGEgaGFzaA=="],
            ["localId": "x-hash", "passwordHash": .string(try bcrypt("pw", prefix: "$2x$"))],
            ["localId": "bad-provider", "providerUserInfo": [["providerId": "google.com"]]],
            ["localId": .string(String(repeating: "u", count: 129))],
            ["localId": "fine", "email": "fine@example.com"],
        ]
        let result = try parse(["users": .array(users), "hashAlgorithm": "BCRYPT"])
        #expect(result.users.map(\.index) == [10])
        #expect(result.failures.map(\.message) == [
            "localId is missing", "email is invalid", "phone number format is invalid",
            "Invalid custom claims provided.", "Custom claims provided are too large.",
            "Custom claims provided include a reserved claim.", AuthImportFailure.passwordHashInvalid,
            AuthImportFailure.passwordHashVariantUnsupported, AuthImportFailure.providerInfoInvalid,
            "localId is invalid",
        ])
        #expect(result.failures.map(\.index) == Array(0...9))
    }

    @Test("answers with kind and the error list, adding the store's failures")
    func response() throws {
        let result = try parse(["users": [["localId": "a"], ["email": "x@y.z"]]])
        let extra = AuthImportFailure(index: 0, message: AuthImportFailure.localIdExists)
        #expect(result.response(adding: [extra]) == [
            "kind": "identitytoolkit#UploadAccountResponse",
            "error": [
                ["index": 0, "message": "localId belongs to an existing account - can not overwrite."],
                ["index": 1, "message": "localId is missing"],
            ],
        ])
        #expect(try parse(["users": [["localId": "a"]]]).response() == [
            "kind": "identitytoolkit#UploadAccountResponse", "error": [],
        ])
    }

    @Test("rejects bad requests as a whole")
    func requestErrors() async throws {
        await #expect(requestError([:]) == "MISSING_USER_ACCOUNT")
        await #expect(requestError(["users": []]) == "MISSING_USER_ACCOUNT")
        await #expect(requestError(["users": "nope"]) == "MISSING_USER_ACCOUNT")
        let many = JSONValue.array((0...1000).map { ["localId": .string("u\($0)")] })
        await #expect(requestError(["users": many])?.hasPrefix("MAXIMUM_USER_COUNT_EXCEEDED") == true)
        await #expect(requestError(["users": [["localId": "a"], ["localId": "b"], ["localId": "a"]]])
            == "DUPLICATE_LOCAL_ID : a")
        await #expect(requestError(["users": [["localId": "a", "passwordHash": "eA=="]], "hashAlgorithm": "SCRYPT"])
            == "UNSUPPORTED_HASH_ALGORITHM : SCRYPT; this emulator only imports BCRYPT password hashes")
        await #expect(
            requestError(["users": [["localId": "a"]], "hashAlgorithm": "ROT13"]) == "INVALID_HASH_ALGORITHM : ROT13"
        )
        await #expect(requestError(["users": [["localId": "a"]], "hashAlgorithm": 5]) == "INVALID_HASH_ALGORITHM : 5")
    }

    @Test("allows another algorithm when no user has a hash, and bcrypt when none is named")
    func otherAlgorithmWithoutHashes() throws {
        let result = try parse(["users": [["localId": "a", "rawPassword": "secret"]], "hashAlgorithm": "HMAC_SHA256"])
        #expect(result.users.count == 1)
        let bare = try bcrypt("secret")
        let inferred = try parse(["users": [["localId": "b", "passwordHash": .string(bare)]]])
        #expect(inferred.users.first?.user.passwordHash == bare)
    }

    @Test("checks duplicates inside the request when sanityCheck is on")
    func sanityCheck() async throws {
        let emails: JSONValue = ["users": [["localId": "a", "email": "X@y.z"], ["localId": "b", "email": "x@Y.z"]]]
        #expect(try parse(emails).users.count == 2)
        var checked = emails
        if case .object(var members) = checked { members["sanityCheck"] = true; checked = .object(members) }
        await #expect(requestError(checked) == "DUPLICATE_EMAIL : x@y.z")
        let provider: JSONValue = ["providerId": "google.com", "rawId": "g"]
        await #expect(requestError(["sanityCheck": true, "users": [
            ["localId": "a", "providerUserInfo": [provider]], ["localId": "b", "providerUserInfo": [provider]],
        ]]) == "DUPLICATE_RAW_ID : Provider id(google.com), Raw id(g)")
    }

    @Test("reads allowOverwrite")
    func allowOverwrite() throws {
        #expect(try parse(["users": [["localId": "a"]], "allowOverwrite": true]).allowOverwrite)
        #expect(try !parse(["users": [["localId": "a"]]]).allowOverwrite)
    }
}
