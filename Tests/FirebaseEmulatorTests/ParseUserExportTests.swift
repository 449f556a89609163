import FirebaseEmulator
import Foundation
import CloudEvents
import CloudFunctions
import Testing

@Suite("ParseUserExport")
struct ParseUserExportTests {
    /// Real bcrypt strings made here: a `$2y$` one (PHP style, rewritten from `$2b$`) and a `$2a$` one.
    static let hashes = (
        y: "$2y$" + AuthFixtures.hasher.hash("parse-pass-1").dropFirst(4),
        a: "$2a$" + AuthFixtures.hasher.hash("parse-pass-2").dropFirst(4)
    )

    static func export() throws -> String {
        let (y, a) = hashes
        return """
            {"results": [
              {"objectId": "aB3dE5gH7j", "username": "alice", "email": "Alice@Example.com", "emailVerified": true,
               "_hashed_password": "\(y)", "createdAt": "2016-01-02T03:04:05.678Z",
               "updatedAt": "2016-02-02T03:04:05.678Z", "sessionToken": "r:secret",
               "authData": {"facebook": {"id": "10153", "access_token": "tok", "expiration_date": "2016-03-01"}}},
              {"objectId": "Zz9Yy8Xx7W", "username": "bob@example.com", "bcryptPassword": "\(a)",
               "createdAt": {"__type": "Date", "iso": "2015-06-07T08:09:10Z"},
               "authData": {"anonymous": {"id": "anon"}, "twitter": {"id": 42}}}
            ]}
            """
    }

    @Test("converts _User records into batchCreate users")
    func converts() throws {
        let (y, _) = Self.hashes
        let request = try ParseUserExport.batchCreateRequest(parsing: Data(try Self.export().utf8))
        #expect(request["hashAlgorithm"] == "BCRYPT")
        let users = try #require(request["users"]?.arrayValue)
        #expect(users[0] == [
            "localId": "aB3dE5gH7j", "email": "alice@example.com", "emailVerified": true, "displayName": "alice",
            "passwordHash": .string(Data(y.utf8).base64EncodedString()), "createdAt": "1451703845678",
            "providerUserInfo": [["providerId": "facebook.com", "rawId": "10153"]],
        ])
        #expect(users[1]["email"] == "bob@example.com")
        #expect(users[1]["displayName"] == nil)
        #expect(users[1]["createdAt"] == "1433664550000")
        #expect(users[1]["providerUserInfo"] == [["providerId": "twitter.com", "rawId": "42"]])
    }

    @Test("imports Parse users whose passwords then verify")
    func endToEnd() throws {
        let request = try ParseUserExport.batchCreateRequest(parsing: Data(try Self.export().utf8))
        let result = try AuthUserImport(parsing: request, now: .distantPast, hasher: AuthFixtures.hasher)
        #expect(result.failures == [])
        let alice = try #require(result.users.first { $0.user.localId == "aB3dE5gH7j" }?.user)
        let bob = try #require(result.users.first { $0.user.localId == "Zz9Yy8Xx7W" }?.user)
        let aliceHash = try #require(alice.passwordHash)
        let bobHash = try #require(bob.passwordHash)
        #expect(aliceHash.hasPrefix("$2y$04$"))
        #expect(bobHash.hasPrefix("$2a$04$"))
        #expect(AuthFixtures.hasher.verify("parse-pass-1", against: aliceHash))
        #expect(!AuthFixtures.hasher.verify("parse-pass-2", against: aliceHash))
        #expect(AuthFixtures.hasher.verify("parse-pass-2", against: bobHash))
        #expect(!AuthFixtures.hasher.verify("wrong", against: bobHash))
        #expect(alice.providerData == [AuthProviderInfo(providerId: "facebook.com", rawId: "10153")])
        #expect(alice.cloudUserRecord.metadata.creationTime.map(RFC3339Timestamp.millisecondString(from:))
            == "2016-01-02T03:04:05.678Z")
    }

    @Test("accepts a bare array")
    func bareArray() throws {
        let request = try ParseUserExport.batchCreateRequest(from: [["objectId": "a1"]])
        #expect(request["users"] == [["localId": "a1"]])
    }

    @Test("rejects malformed exports", arguments: [
        (#"{"rows": []}"#, "INVALID_PARSE_EXPORT : expected {\"results\": [...]} or an array of _User objects"),
        ("not json", "INVALID_PARSE_EXPORT : the export is not JSON"),
        ("[1]", "INVALID_PARSE_EXPORT : user 0 is not an object"),
        (#"[{"objectId": "a"}, {"email": "x@y.z"}]"#, "INVALID_PARSE_EXPORT : user 1 has no objectId"),
        (#"[{"objectId": "a", "createdAt": "last week"}]"#, "INVALID_PARSE_EXPORT : user 0 has a malformed createdAt"),
    ])
    func malformed(text: String, message: String) async {
        let thrown = AuthFixtures.message { _ = try ParseUserExport.batchCreateRequest(parsing: Data(text.utf8)) }
        #expect(thrown == message)
    }
}
