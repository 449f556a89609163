import CloudFunctions
import CloudFunctionsTesting
import EmulatorServer
import FirebaseEmulator
import CloudEvents
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Identity Toolkit routes, with the bodies the admin SDKs and client SDKs send.
@Suite("Auth routes")
struct AuthRoutesTests {
    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let admin = "/identitytoolkit.googleapis.com/v1/projects/demo"
    static let owner: HTTPFields = [.authorization: "Bearer owner", .contentType: "application/json"]

    static func call(
        _ client: some TestClientProtocol, _ uri: String, _ body: String, headers: HTTPFields = owner,
        method: HTTPRequest.Method = .post
    ) async throws -> (HTTPResponse.Status, JSONValue) {
        try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: body)) {
            ($0.status, (try? JSONValue(parsing: Data($0.body.readableBytesView))) ?? .null)
        }
    }

    /// The claims of an emulator ID token.
    static func claims(_ token: JSONValue?) throws -> [String: JSONValue] {
        try AuthIDToken(parsing: try #require(token?.stringValue), projectId: "demo", now: Date(), checksExpiry: false).claims
    }

    @Test("a client's accounts:update: admin-only fields refused or ignored; a new password answers fresh tokens")
    func clientUpdateLimits() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil, clock: clock))
        try await Application(router: server.router()).test(.router) { client in
            let (_, signUp) = try await Self.call(client, "\(Self.v1)/accounts:signUp?key=k",
                #"{"email": "ada@example.com", "password": "secret1"}"#, headers: [:])
            let idToken = try #require(signUp["idToken"]?.stringValue)
            let update = "\(Self.v1)/accounts:update?key=k"
            let (claimsStatus, claims) = try await Self.call(client, update,
                #"{"idToken": "\#(idToken)", "customAttributes": "{\"admin\": true}"}"#, headers: [:])
            #expect(claimsStatus == .badRequest)
            #expect(claims["error"]?["message"] == "INSUFFICIENT_PERMISSION")
            let (_, disable) = try await Self.call(client, update,
                #"{"idToken": "\#(idToken)", "disableUser": true}"#, headers: [:])
            #expect(disable["error"]?["message"] == "OPERATION_NOT_ALLOWED")
            let (_, ignored) = try await Self.call(client, update,
                #"{"idToken": "\#(idToken)", "emailVerified": true, "phoneNumber": "+15550001111", "displayName": "Ada"}"#,
                headers: [:])
            #expect(ignored["displayName"] == "Ada")
            #expect(ignored["emailVerified"] == false)
            #expect(ignored["idToken"] == nil, "nothing revoked: no new tokens")
            let (_, stored) = try await Self.call(client, "\(Self.admin)/accounts:lookup",
                #"{"localId": [\#(signUp["localId"]!.serialized())]}"#)
            #expect(stored["users"]?.arrayValue?.first?["phoneNumber"] == nil)
            #expect(stored["users"]?.arrayValue?.first?["emailVerified"] == false)

            // A new password revokes the earlier tokens and answers new ones, which work.
            clock.advance(by: .seconds(10))
            let (_, changed) = try await Self.call(client, update,
                #"{"idToken": "\#(idToken)", "password": "secret2", "returnSecureToken": true}"#, headers: [:])
            #expect(changed["expiresIn"] == "3600")
            #expect(changed["refreshToken"]?.stringValue?.isEmpty == false)
            #expect(try Self.claims(changed["idToken"])["firebase"]?["sign_in_provider"] == "password")
            let newToken = try #require(changed["idToken"]?.stringValue)
            let (oldStatus, old) = try await Self.call(client, "\(Self.v1)/accounts:lookup?key=k",
                #"{"idToken": "\#(idToken)"}"#, headers: [:])
            #expect(oldStatus == .badRequest)
            #expect(old["error"]?["message"] == "TOKEN_EXPIRED")
            let (newStatus, _) = try await Self.call(client, "\(Self.v1)/accounts:lookup?key=k",
                #"{"idToken": "\#(newToken)"}"#, headers: [:])
            #expect(newStatus == .ok)
        }
    }

    @Test("linking an email and password to an anonymous user keeps that user; refreshes keep the sign-in's auth_time")
    func linkAndAuthTime() async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let emulator = try Emulator(project: "demo", directory: nil, clock: clock)
        let server = EmulatorServer(emulator: emulator)
        try await Application(router: server.router()).test(.router) { client in
            let (_, anonymous) = try await Self.call(client, "\(Self.v1)/accounts:signUp?key=k", "{}", headers: [:])
            let uid = try #require(anonymous["localId"])
            let anonymousToken = try #require(anonymous["idToken"]?.stringValue)
            clock.advance(by: .seconds(10))
            let (_, linked) = try await Self.call(client, "\(Self.v1)/accounts:signUp?key=k",
                #"{"idToken": "\#(anonymousToken)", "email": "Grace@Example.com", "password": "secret1"}"#, headers: [:])
            #expect(linked["localId"] == uid)
            #expect(linked["email"] == "grace@example.com")
            #expect(try Self.claims(linked["idToken"])["firebase"]?["sign_in_provider"] == "password")
            let (_, signIn) = try await Self.call(client, "\(Self.v1)/accounts:signInWithPassword?key=k",
                #"{"email": "grace@example.com", "password": "secret1"}"#, headers: [:])
            #expect(signIn["localId"] == uid)
            let (_, all) = try await Self.call(client, "\(Self.admin)/accounts:batchGet", "", method: .get)
            #expect(all["users"]?.arrayValue?.count == 1, "no second user")
            #expect(try emulator.store.eventLog().count == 1, "one user.created event, for the anonymous sign-up")
            // Another user's email is taken.
            let (_, other) = try await Self.call(client, "\(Self.v1)/accounts:signUp?key=k", "{}", headers: [:])
            let (_, taken) = try await Self.call(client, "\(Self.v1)/accounts:signUp?key=k",
                #"{"idToken": \#(other["idToken"]!.serialized()), "email": "grace@example.com", "password": "secret1"}"#,
                headers: [:])
            #expect(taken["error"]?["message"] == "EMAIL_EXISTS")

            // auth_time is the sign-in's, however often the session is refreshed.
            let signedInAt = try Self.claims(signIn["idToken"])["auth_time"]
            var refresh = try #require(signIn["refreshToken"]?.stringValue)
            for _ in 0..<2 {
                clock.advance(by: .seconds(600))
                let refreshed = try await client.execute(
                    uri: "/securetoken.googleapis.com/v1/token?key=k", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "grant_type=refresh_token&refresh_token=\(refresh)")
                ) { try JSONValue(parsing: Data($0.body.readableBytesView)) }
                #expect(try Self.claims(refreshed["id_token"])["auth_time"] == signedInAt)
                refresh = try #require(refreshed["refresh_token"]?.stringValue)
            }
        }
    }

    @Test("client sign-up and sign-in with an API key; tokens refresh; the user is found by its ID token")
    func clientFlow() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            let (status, signUp) = try await Self.call(client, "\(Self.v1)/accounts:signUp?key=k",
                #"{"email": "Ada@Example.com", "password": "secret1", "returnSecureToken": true}"#, headers: [:])
            #expect(status == .ok)
            #expect(signUp["kind"] == "identitytoolkit#SignupNewUserResponse")
            #expect(signUp["email"] == "ada@example.com")
            #expect(signUp["expiresIn"] == "3600")
            let idToken = try #require(signUp["idToken"]?.stringValue)
            #expect(idToken.hasSuffix("."))

            let (_, signIn) = try await Self.call(client, "\(Self.v1)/accounts:signInWithPassword?key=k",
                #"{"email": "ada@example.com", "password": "secret1"}"#, headers: [:])
            #expect(signIn["registered"] == true)
            #expect(signIn["localId"] == signUp["localId"])
            let (wrongStatus, wrong) = try await Self.call(client, "\(Self.v1)/accounts:signInWithPassword?key=k",
                #"{"email": "ada@example.com", "password": "nope123"}"#, headers: [:])
            #expect(wrongStatus == .badRequest)
            #expect(wrong["error"]?["message"] == "INVALID_PASSWORD")
            #expect(wrong["error"]?["errors"]?.arrayValue?.first?["reason"] == "invalid")

            let refresh = try #require(signIn["refreshToken"]?.stringValue)
            let (refreshStatus, refreshed) = try await client.execute(
                uri: "/securetoken.googleapis.com/v1/token?key=k", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "grant_type=refresh_token&refresh_token=\(refresh)")
            ) { ($0.status, try JSONValue(parsing: Data($0.body.readableBytesView))) }
            #expect(refreshStatus == .ok)
            #expect(refreshed["user_id"] == signUp["localId"])
            #expect(refreshed["token_type"] == "Bearer")

            let (_, lookedUp) = try await Self.call(client, "\(Self.v1)/accounts:lookup?key=k",
                #"{"idToken": "\#(idToken)"}"#, headers: [:])
            #expect(lookedUp["users"]?.arrayValue?.first?["email"] == "ada@example.com")

            let (_, updated) = try await Self.call(client, "\(Self.v1)/accounts:update?key=k",
                #"{"idToken": "\#(idToken)", "displayName": "Ada"}"#, headers: [:])
            #expect(updated["displayName"] == "Ada")
            #expect(updated["kind"] == "identitytoolkit#SetAccountInfoResponse")

            let (_, deleted) = try await Self.call(client, "\(Self.v1)/accounts:delete?key=k",
                #"{"idToken": "\#(idToken)"}"#, headers: [:])
            #expect(deleted["kind"] == "identitytoolkit#DeleteAccountResponse")
        }
        #expect(try server.emulator.auth.listUsers().users.isEmpty)
        let types = try server.emulator.store.eventLog().map(\.entry.event.type)
        #expect(types == ["google.firebase.auth.user.v1.created", "google.firebase.auth.user.v1.deleted"])
    }

    @Test("admin create, lookup by uid and email, update with claims, list pages, delete, batch delete")
    func adminFlow() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            for index in 1...3 {
                let (status, created) = try await Self.call(client, "\(Self.admin)/accounts",
                    #"{"localId": "u\#(index)", "email": "u\#(index)@example.com", "password": "secret1"}"#)
                #expect(status == .ok)
                #expect(created["localId"] == .string("u\(index)"))
                #expect(created["idToken"] == nil)
            }
            let (duplicateStatus, duplicate) = try await Self.call(client, "\(Self.admin)/accounts",
                #"{"localId": "u1"}"#)
            #expect(duplicateStatus == .badRequest)
            #expect(duplicate["error"]?["message"] == "DUPLICATE_LOCAL_ID")

            let (_, byId) = try await Self.call(client, "\(Self.admin)/accounts:lookup", #"{"localId": ["u2"]}"#)
            #expect(byId["users"]?.arrayValue?.first?["email"] == "u2@example.com")
            let (_, byEmail) = try await Self.call(client, "\(Self.admin)/accounts:lookup",
                #"{"email": ["u3@example.com"]}"#)
            #expect(byEmail["users"]?.arrayValue?.first?["localId"] == "u3")
            let (_, none) = try await Self.call(client, "\(Self.admin)/accounts:lookup", #"{"localId": ["zz"]}"#)
            #expect(none == ["kind": "identitytoolkit#GetAccountInfoResponse"])

            let (_, claims) = try await Self.call(client, "\(Self.admin)/accounts:update",
                #"{"localId": "u1", "customAttributes": "{\"admin\": true}"}"#)
            #expect(claims["customAttributes"] == #"{"admin":true}"#)
            let (forbiddenStatus, forbidden) = try await Self.call(client, "\(Self.admin)/accounts:update",
                #"{"localId": "u1", "customAttributes": "{\"sub\": \"x\"}"}"#)
            #expect(forbiddenStatus == .badRequest)
            #expect(forbidden["error"]?["message"]?.stringValue?.hasPrefix("FORBIDDEN_CLAIM") == true)
            // The smallest Int64 as validSince: ignored as out of range, not a crash of the emulator.
            let (edgeStatus, _) = try await Self.call(client, "\(Self.admin)/accounts:update",
                #"{"localId": "u1", "validSince": "-9223372036854775808"}"#)
            #expect(edgeStatus == .ok)
            let (_, missing) = try await Self.call(client, "\(Self.admin)/accounts:update",
                #"{"localId": "nobody", "displayName": "x"}"#)
            #expect(missing["error"]?["message"] == "USER_NOT_FOUND")

            let (_, page) = try await Self.call(client, "\(Self.admin)/accounts:batchGet?maxResults=2", "",
                method: .get)
            #expect(page["users"]?.arrayValue?.count == 2)
            let token = try #require(page["nextPageToken"]?.stringValue)
            let (_, last) = try await Self.call(client,
                "\(Self.admin)/accounts:batchGet?maxResults=2&nextPageToken=\(token)", "", method: .get)
            #expect(last["users"]?.arrayValue?.map { $0["localId"] } == ["u3"])
            #expect(last["nextPageToken"] == nil)

            let (_, deleted) = try await Self.call(client, "\(Self.admin)/accounts:delete", #"{"localId": "u1"}"#)
            #expect(deleted["kind"] == "identitytoolkit#DeleteAccountResponse")
            let (_, batch) = try await Self.call(client, "\(Self.admin)/accounts:batchDelete",
                #"{"localIds": ["u2", "u3"]}"#)
            #expect(batch["errors"]?.arrayValue?.count == 2)
            let (_, forced) = try await Self.call(client, "\(Self.admin)/accounts:batchDelete",
                #"{"localIds": ["u2", "u3"], "force": true}"#)
            #expect(forced["errors"] == nil)
        }
        #expect(try server.emulator.auth.listUsers().users.isEmpty)
    }

    @Test("a Parse export's bcrypt hashes import (standard and URL-safe base64) and sign in with the old password")
    func bcryptImport() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        // bcrypt("parse-pass", cost 4) as Parse stores it.
        let hash = AuthPasswordHasher(cost: 4).hash("parse-pass")
        let standard = Data(hash.utf8).base64EncodedString()
        let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let body = #"""
            {"hashAlgorithm": "BCRYPT", "users": [
              {"localId": "p1", "email": "one@example.com", "passwordHash": "\#(standard)"},
              {"localId": "p2", "email": "two@example.com", "passwordHash": "\#(urlSafe)"},
              {"email": "no-uid@example.com"}]}
            """#
        try await Application(router: server.router()).test(.router) { client in
            let (status, outcome) = try await Self.call(client, "\(Self.admin)/accounts:batchCreate", body)
            #expect(status == .ok)
            #expect(outcome["error"] == [["index": 2, "message": "localId is missing"]])
            for email in ["one@example.com", "two@example.com"] {
                let (signInStatus, signIn) = try await Self.call(client,
                    "\(Self.v1)/accounts:signInWithPassword?key=k",
                    #"{"email": "\#(email)", "password": "parse-pass"}"#, headers: [:])
                #expect(signInStatus == .ok, "\(signIn)")
            }
        }
    }

    @Test("privileged calls need the owner token; client calls need an API key; bad bodies are 400")
    func permissions() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            let (noAuth, noAuthBody) = try await Self.call(client, "\(Self.admin)/accounts:batchCreate",
                #"{"users": []}"#, headers: [:])
            #expect(noAuth == .forbidden)
            #expect(noAuthBody["error"]?["message"]?.stringValue?.hasPrefix("INSUFFICIENT_PERMISSION") == true)
            let (badToken, _) = try await Self.call(client, "\(Self.admin)/accounts:batchGet", "",
                headers: [.authorization: "Bearer someone"], method: .get)
            #expect(badToken == .unauthorized)
            let (noKey, noKeyBody) = try await Self.call(client, "\(Self.v1)/accounts:signInWithPassword",
                #"{"email": "a@b.com", "password": "secret1"}"#, headers: [:])
            #expect(noKey == .forbidden)
            #expect(noKeyBody["error"]?["message"] == "The request is missing a valid API key.")
            let (notJSON, _) = try await Self.call(client, "\(Self.v1)/accounts:signUp?key=k", "{email")
            #expect(notJSON == .badRequest)
            let (mistyped, mistypedBody) = try await Self.call(client, "\(Self.admin)/accounts",
                #"{"email": 42}"#)
            #expect(mistyped == .badRequest)
            #expect(mistypedBody["error"]?["message"]?.stringValue?.contains("email") == true)
            let (weak, weakBody) = try await Self.call(client, "\(Self.v1)/accounts:signUp?key=k",
                #"{"email": "w@example.com", "password": "123"}"#, headers: [:])
            #expect(weak == .badRequest)
            #expect(weakBody["error"]?["message"]?.stringValue?.hasPrefix("WEAK_PASSWORD") == true)
            let (clientUid, clientUidBody) = try await Self.call(client, "\(Self.v1)/accounts:signUp?key=k",
                #"{"localId": "mine", "email": "x@example.com", "password": "secret1"}"#, headers: [:])
            #expect(clientUid == .badRequest)
            #expect(clientUidBody["error"]?["message"]?.stringValue?.hasPrefix("UNEXPECTED_PARAMETER") == true)
        }
        #expect(try server.emulator.auth.listUsers().users.isEmpty)
    }

    @Test("the emulator routes wipe the users and toggle improved email privacy")
    func emulatorRoutes() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        try await Application(router: server.router()).test(.router) { client in
            _ = try await Self.call(client, "\(Self.admin)/accounts", #"{"email": "a@example.com", "password": "secret1"}"#)
            let (_, config) = try await Self.call(client, "/emulator/v1/projects/demo/config",
                #"{"emailPrivacyConfig": {"enableImprovedEmailPrivacy": true}}"#, method: .patch)
            #expect(config["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"] == true)
            let (_, unknown) = try await Self.call(client, "\(Self.v1)/accounts:signInWithPassword?key=k",
                #"{"email": "zz@example.com", "password": "secret1"}"#, headers: [:])
            #expect(unknown["error"]?["message"] == "INVALID_LOGIN_CREDENTIALS")
            let (wipe, _) = try await Self.call(client, "/emulator/v1/projects/demo/accounts", "", method: .delete)
            #expect(wipe == .ok)
        }
        #expect(try server.emulator.auth.listUsers().users.isEmpty)
    }
}
