import CloudFunctions
import Foundation
import Testing

/// `functions auth:import` with a Parse export and a Firebase export.
@Suite("functions auth:import", .timeLimit(.minutes(5)))
struct AuthImportTests {
    // bcrypt("parse-password") at cost 10, as a Parse export holds it.
    static let parseHash = "$2a$10$abcdefghijklmnopqrstuu3wCsxB6/zKn6E0GfSu8Oxcxub8tCTka"

    @Test("a Parse export imports with its bcrypt hashes: the users sign in with their Parse passwords")
    func parseExport() async throws {
        let emulator = try RunningEmulator()
        let export = #"""
            {"results": [
              {"objectId": "p1", "username": "ada", "email": "Ada@Example.com", "bcryptPassword": "\#(Self.parseHash)",
               "emailVerified": true, "createdAt": "2015-03-01T10:00:00.000Z",
               "authData": {"facebook": {"id": "1234", "access_token": "x"}}},
              {"objectId": "p2", "email": "grace@example.com", "_hashed_password": "\#(Self.parseHash)"}
            ]}
            """#
        let result = try emulator.cli("auth:import", "-", "--from", "parse", input: export)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "imported 2 users\n")
        #expect(result.errors.contains("imported 2 of 2 users"))

        let signIn = try await emulator.request("POST",
            "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
            ["email": "ada@example.com", "password": "parse-password"])
        #expect(signIn["localId"] == "p1", "\(signIn)")
        let users = try await emulator.request("POST",
            "/identitytoolkit.googleapis.com/v1/projects/demo-project/accounts:lookup", ["localId": ["p1"]])
        let user = users["users"]?.arrayValue?.first
        #expect(user?["displayName"] == "ada")
        #expect(user?["emailVerified"] == true)
        #expect(user?["createdAt"] == "1425204000000")
        #expect(user?["providerUserInfo"]?.arrayValue?.contains { $0["providerId"] == "facebook.com" } == true)

        // Importing the same users again: each is refused, listed, and the exit is non-zero.
        let again = try emulator.cli("auth:import", "-", "--from", "parse", input: export)
        #expect(again.status != 0)
        #expect(again.errors.contains("user 0 (p1):"), "\(again.errors)")
        #expect(again.errors.contains("2 of 2 users were not imported"))
    }

    @Test("a Firebase export needs --hash-algo when it has hashes; bad files are one clear error")
    func firebaseExport() throws {
        let emulator = try RunningEmulator()
        let hash = Data(Self.parseHash.utf8).base64EncodedString()
        let export = #"{"users": [{"localId": "f1", "email": "f1@example.com", "passwordHash": "\#(hash)", "#
            + #""lastSignedInAt": "1600000000000"}]}"#
        let missing = try emulator.cli("auth:import", "-", input: export)
        #expect(missing.status != 0)
        #expect(missing.errors.contains("give --hash-algo (BCRYPT)"))
        let imported = try emulator.cli("auth:import", "-", "--hash-algo", "BCRYPT", input: export)
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output == "imported 1 user\n")

        let unsupported = try emulator.cli("auth:import", "-", "--hash-algo", "SCRYPT", input: export)
        #expect(unsupported.status != 0)
        #expect(unsupported.errors.contains("--hash-algo SCRYPT is not supported"))
        let notExport = try emulator.cli("auth:import", "-", input: #"{"people": []}"#)
        #expect(notExport.errors.contains("is not a Firebase auth export"))
        let notParse = try emulator.cli("auth:import", "-", "--from", "parse", input: #"{"results": [{"email": "x"}]}"#)
        #expect(notParse.status != 0)
        #expect(notParse.errors.contains("is not a Parse _User export"), "\(notParse.errors)")
    }
}
