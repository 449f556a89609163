import CloudFunctions
import CloudFunctionsTesting
import EmulatorServer
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// E-mail actions over HTTP: `accounts:sendOobCode` and the calls that use its codes, the
/// emulator's list of codes, and the `/emulator/action` page the links open.
@Suite("Auth e-mail action routes")
struct AuthActionRoutesTests {
    static let v1 = AuthRoutesTests.v1
    static let admin = AuthRoutesTests.admin
    static let codes = "/emulator/v1/projects/demo/oobCodes"

    static func call(
        _ client: some TestClientProtocol, _ uri: String, _ body: String, headers: HTTPFields = AuthRoutesTests.owner,
        method: HTTPRequest.Method = .post
    ) async throws -> (HTTPResponse.Status, JSONValue) {
        try await AuthRoutesTests.call(client, uri, body, headers: headers, method: method)
    }

    /// Status, headers and text of a request to the action page.
    static func page(
        _ client: some TestClientProtocol, _ uri: String, html: Bool = false, form: String? = nil
    ) async throws -> (HTTPResponse.Status, HTTPFields, String) {
        var headers: HTTPFields = html ? [.accept: "text/html,application/xhtml+xml"] : [:]
        if form != nil { headers[.contentType] = "application/x-www-form-urlencoded" }
        return try await client.execute(uri: uri, method: form == nil ? .get : .post, headers: headers,
            body: form.map { ByteBuffer(string: $0) }) { ($0.status, $0.headers, String(buffer: $0.body)) }
    }

    /// The path and query of a link, as the test client asks for it.
    static func path(_ link: JSONValue?) throws -> String {
        let text = try #require(link?.stringValue)
        let url = try #require(URL(string: text))
        return url.path + "?" + (url.query(percentEncoded: true) ?? "")
    }

    /// Runs `body` against an emulator on a manual clock where ada@example.com has signed up.
    static func withAda(_ body: @Sendable (any TestClientProtocol, ManualClock) async throws -> Void) async throws {
        let clock = ManualClock(now: Date(timeIntervalSince1970: 1_800_000_000))
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil, clock: clock))
        try await Application(router: server.router()).test(.router) { client in
            _ = try await Self.call(client, "\(Self.v1)/accounts:signUp?key=k",
                #"{"email": "ada@example.com", "password": "secret1"}"#, headers: [:])
            try await body(client, clock)
        }
    }

    @Test("the Admin SDKs get the link; a client's code is only listed; the list is cleared by the owner")
    func sendAndList() async throws {
        try await Self.withAda { client, clock in
            let (status, admin) = try await Self.call(client, "\(Self.admin)/accounts:sendOobCode",
                #"{"requestType": "PASSWORD_RESET", "email": "Ada@example.com", "returnOobLink": true}"#)
            #expect(status == .ok)
            #expect(admin.objectValue?.keys.sorted() == ["email", "kind", "oobCode", "oobLink"])
            #expect(admin["kind"] == "identitytoolkit#GetOobConfirmationCodeResponse")
            #expect(admin["email"] == "ada@example.com")
            let code = try #require(admin["oobCode"]?.stringValue)
            #expect(try Self.path(admin["oobLink"])
                == "/emulator/action?mode=resetPassword&lang=en&oobCode=\(code)&apiKey=fake-api-key")

            clock.advance(by: .seconds(1))
            let (_, mailed) = try await Self.call(client, "\(Self.v1)/accounts:sendOobCode?key=k",
                #"{"requestType": "EMAIL_SIGNIN", "email": "new@example.com", "continueUrl": "https://app.example.com/in"}"#,
                headers: [:])
            #expect(mailed == ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "new@example.com"])
            let (_, clientAsked) = try await Self.call(client, "\(Self.v1)/accounts:sendOobCode?key=k",
                #"{"requestType": "PASSWORD_RESET", "email": "ada@example.com", "returnOobLink": true}"#, headers: [:])
            #expect(clientAsked["error"]?["message"] == "INSUFFICIENT_PERMISSION")
            let (_, keyless) = try await Self.call(client, "\(Self.v1)/accounts:sendOobCode",
                #"{"requestType": "PASSWORD_RESET", "email": "ada@example.com"}"#, headers: [:])
            #expect(keyless["error"]?["message"] == "The request is missing a valid API key.")

            let (_, listed) = try await Self.call(client, Self.codes, "", headers: [:], method: .get)
            let entries = try #require(listed["oobCodes"]?.arrayValue)
            #expect(entries.map { $0["requestType"] } == ["PASSWORD_RESET", "EMAIL_SIGNIN"])
            #expect(entries[0]["oobCode"]?.stringValue == code)
            #expect(entries[0]["expireTime"] == "2027-01-15T09:00:00.000Z")
            #expect(entries[1]["email"] == "new@example.com")
            #expect(entries[1]["actionCodeSettings"] == ["continueUrl": "https://app.example.com/in"])
            #expect(try Self.path(entries[1]["oobLink"]).hasSuffix("&continueUrl=https%3A%2F%2Fapp.example.com%2Fin"))

            let (refused, _) = try await Self.call(client, Self.codes, "", headers: [:], method: .delete)
            #expect(refused == .unauthorized)
            let (cleared, _) = try await Self.call(client, Self.codes, "", method: .delete)
            #expect(cleared == .ok)
            let (_, empty) = try await Self.call(client, Self.codes, "", headers: [:], method: .get)
            #expect(empty["oobCodes"] == [])
            let (_, gone) = try await Self.call(client, "\(Self.v1)/accounts:resetPassword?key=k",
                #"{"oobCode": "\#(code)", "newPassword": "newsecret"}"#, headers: [:])
            #expect(gone["error"]?["message"] == "INVALID_OOB_CODE")
        }
    }

    @Test("resetPassword, update with oobCode and signInWithEmailLink answer as the service; used and expired codes are refused")
    func restCalls() async throws {
        try await Self.withAda { client, clock in
            func code(_ type: String, _ email: String = "ada@example.com") async throws -> String {
                let (_, sent) = try await Self.call(client, "\(Self.admin)/accounts:sendOobCode",
                    #"{"requestType": "\#(type)", "email": "\#(email)", "returnOobLink": true}"#)
                return try #require(sent["oobCode"]?.stringValue)
            }
            let reset = try await code("PASSWORD_RESET")
            let resetURI = "\(Self.v1)/accounts:resetPassword?key=k"
            let (_, checked) = try await Self.call(client, resetURI, #"{"oobCode": "\#(reset)"}"#, headers: [:])
            #expect(checked == ["kind": "identitytoolkit#ResetPasswordResponse", "requestType": "PASSWORD_RESET",
                "email": "ada@example.com"])
            let (_, done) = try await Self.call(client, resetURI, #"{"oobCode": "\#(reset)", "newPassword": "newsecret"}"#,
                headers: [:])
            #expect(done == checked)
            let (reusedStatus, reused) = try await Self.call(client, resetURI,
                #"{"oobCode": "\#(reset)", "newPassword": "newsecret"}"#, headers: [:])
            #expect(reusedStatus == .badRequest)
            #expect(reused["error"]?["message"] == "INVALID_OOB_CODE")
            #expect(reused["error"]?["errors"]?.arrayValue?.first?["reason"] == "invalid")

            let expiring = try await code("PASSWORD_RESET")
            clock.advance(by: .seconds(3600))
            let (expiredStatus, expired) = try await Self.call(client, resetURI,
                #"{"oobCode": "\#(expiring)", "newPassword": "another1"}"#, headers: [:])
            #expect(expiredStatus == .badRequest)
            #expect(expired["error"]?["message"] == "EXPIRED_OOB_CODE")
            let (_, stillNew) = try await Self.call(client, "\(Self.v1)/accounts:signInWithPassword?key=k",
                #"{"email": "ada@example.com", "password": "newsecret"}"#, headers: [:])
            #expect(stillNew["localId"] != nil)

            // A verification code needs no ID token: the link is enough.
            let verify = try await code("VERIFY_EMAIL")
            let (_, verified) = try await Self.call(client, "\(Self.v1)/accounts:update?key=k",
                #"{"oobCode": "\#(verify)"}"#, headers: [:])
            #expect(verified["kind"] == "identitytoolkit#SetAccountInfoResponse")
            #expect(verified["emailVerified"] == true)
            #expect(verified["email"] == "ada@example.com")
            #expect(verified["idToken"] == nil)

            let signIn = try await code("EMAIL_SIGNIN", "new@example.com")
            let (_, signedIn) = try await Self.call(client, "\(Self.v1)/accounts:signInWithEmailLink?key=k",
                #"{"email": "new@example.com", "oobCode": "\#(signIn)"}"#, headers: [:])
            #expect(signedIn.objectValue?.keys.sorted()
                == ["email", "expiresIn", "idToken", "isNewUser", "kind", "localId", "refreshToken"])
            #expect(signedIn["kind"] == "identitytoolkit#EmailLinkSigninResponse")
            #expect(signedIn["isNewUser"] == true)
            #expect(try AuthRoutesTests.claims(signedIn["idToken"])["email_verified"] == true)
            let (_, lookup) = try await Self.call(client, "\(Self.admin)/accounts:lookup", #"{"email": ["new@example.com"]}"#)
            #expect(lookup["users"]?.arrayValue?.first?["emailLinkSignin"] == true)
            #expect(lookup["users"]?.arrayValue?.first?["providerUserInfo"]?.arrayValue?.first?["providerId"] == "password")
        }
    }

    @Test("the action page: a reset form that posts back, a verification on opening, sign-in links handed to the app")
    func actionPage() async throws {
        try await Self.withAda { client, clock in
            func link(_ type: String, _ email: String = "ada@example.com", settings: String = "") async throws -> String {
                let (_, sent) = try await Self.call(client, "\(Self.admin)/accounts:sendOobCode",
                    #"{"requestType": "\#(type)", "email": "\#(email)", "returnOobLink": true\#(settings)}"#)
                return try Self.path(sent["oobLink"])
            }
            // A script: JSON, and `&newPassword=` as with Firebase's emulator.
            let reset = try await link("PASSWORD_RESET")
            let (askStatus, _, ask) = try await Self.page(client, reset)
            #expect(askStatus == .badRequest)
            #expect(try JSONValue(parsing: Data(ask.utf8))["authEmulator"]?["error"] == "missing newPassword query parameter")
            let (setStatus, _, set) = try await Self.page(client, reset + "&newPassword=viascript1")
            #expect(setStatus == .ok)
            #expect(try JSONValue(parsing: Data(set.utf8))["authEmulator"]
                == ["success": "The password has been successfully updated.", "email": "ada@example.com"])
            let (againStatus, _, again) = try await Self.page(client, reset + "&newPassword=viascript2")
            #expect(againStatus == .badRequest)
            #expect(try JSONValue(parsing: Data(again.utf8))["authEmulator"]?["code"] == "INVALID_OOB_CODE")

            // A browser: a form whose post carries the link's fields back, then a redirect to the continue URL.
            let browserReset = try await link("PASSWORD_RESET", settings: #", "continueUrl": "https://app.example.com/done""#)
            let (formStatus, formHeaders, form) = try await Self.page(client, browserReset, html: true)
            #expect(formStatus == .ok)
            #expect(formHeaders[.contentType] == "text/html; charset=utf-8")
            #expect(form.contains(#"<form method="post" action="/emulator/action">"#))
            #expect(form.contains(#"<input type="hidden" name="mode" value="resetPassword">"#))
            #expect(form.contains(#"name="newPassword" type="password""#))
            let code = try #require(URLComponents(string: browserReset)?.queryItems?.first { $0.name == "oobCode" }?.value)
            let posted = "mode=resetPassword&oobCode=\(code)&apiKey=fake-api-key&lang=en"
                + "&continueUrl=https%3A%2F%2Fapp.example.com%2Fdone&newPassword=viaform1"
            let (postStatus, postHeaders, _) = try await Self.page(client, "/emulator/action", html: true, form: posted)
            #expect(postStatus == .seeOther)
            #expect(postHeaders[.location] == "https://app.example.com/done")
            let (_, signIn) = try await Self.call(client, "\(Self.v1)/accounts:signInWithPassword?key=k",
                #"{"email": "ada@example.com", "password": "viaform1"}"#, headers: [:])
            #expect(signIn["localId"] != nil)
            let (usedStatus, _, used) = try await Self.page(client, "/emulator/action", html: true, form: posted)
            #expect(usedStatus == .badRequest)
            #expect(used.contains("This link is not valid: it was already used, or it was never made."))

            // Opening a verification link verifies.
            let verify = try await link("VERIFY_EMAIL")
            let (verifyStatus, _, verified) = try await Self.page(client, verify, html: true)
            #expect(verifyStatus == .ok)
            #expect(verified.contains("The email has been successfully verified."))
            let (_, lookup) = try await Self.call(client, "\(Self.admin)/accounts:lookup", #"{"email": ["ada@example.com"]}"#)
            #expect(lookup["users"]?.arrayValue?.first?["emailVerified"] == true)

            // A sign-in link goes to the app with its parameters; an app's reset link too.
            let toApp = try await link("EMAIL_SIGNIN", "new@example.com",
                settings: #", "continueUrl": "https://app.example.com/in?cart=7#top", "canHandleCodeInApp": true"#)
            let signInCode = try #require(URLComponents(string: toApp)?.queryItems?.first { $0.name == "oobCode" }?.value)
            let (redirectStatus, redirect, _) = try await Self.page(client, toApp, html: true)
            #expect(redirectStatus == .seeOther)
            #expect(redirect[.location]
                == "https://app.example.com/in?cart=7&apiKey=fake-api-key&lang=en&mode=signIn&oobCode=\(signInCode)#top")
            let inApp = try await link("PASSWORD_RESET",
                settings: #", "continueUrl": "https://app.example.com/reset", "canHandleCodeInApp": true"#)
            let (_, inAppHeaders, _) = try await Self.page(client, inApp, html: true)
            #expect(inAppHeaders[.location]?.hasPrefix("https://app.example.com/reset?apiKey=fake-api-key&lang=en&mode=resetPassword&oobCode=") == true)

            // Without a continue URL, the page confirms the address and signs in.
            let here = try await link("EMAIL_SIGNIN", "zoe@example.com")
            let (_, _, confirm) = try await Self.page(client, here, html: true)
            #expect(confirm.contains(#"name="email" type="email" value="""#))
            #expect(!confirm.contains("zoe@example.com"), "the page does not tell who the link is for")
            let hereCode = try #require(URLComponents(string: here)?.queryItems?.first { $0.name == "oobCode" }?.value)
            let (_, _, signedIn) = try await Self.page(client, "/emulator/action", html: true,
                form: "mode=signIn&oobCode=\(hereCode)&apiKey=fake-api-key&email=zoe%40example.com")
            #expect(signedIn.contains("Signed in as zoe@example.com"))
            #expect(signedIn.contains("a new user"))
            // A script gives the address in the link.
            let scripted = try await link("EMAIL_SIGNIN", "zoe@example.com")
            let (scriptStatus, _, scriptText) = try await Self.page(client, scripted + "&email=zoe%40example.com")
            #expect(scriptStatus == .ok)
            #expect(try JSONValue(parsing: Data(scriptText.utf8))["authEmulator"]?["email"] == "zoe@example.com")

            // Expired, missing, mismatched.
            let late = try await link("VERIFY_EMAIL")
            clock.advance(by: .seconds(3 * 86400))
            let (lateStatus, _, lateText) = try await Self.page(client, late)
            #expect(lateStatus == .badRequest)
            #expect(try JSONValue(parsing: Data(lateText.utf8))["authEmulator"]?["code"] == "EXPIRED_OOB_CODE")
            let (noKey, _, _) = try await Self.page(client, "/emulator/action?mode=verifyEmail&oobCode=x")
            #expect(noKey == .badRequest)
            let other = try await link("PASSWORD_RESET")
            let (wrongMode, _, wrongText) = try await Self.page(client, other.replacingOccurrences(of: "mode=resetPassword",
                with: "mode=verifyEmail"))
            #expect(wrongMode == .badRequest)
            #expect(try JSONValue(parsing: Data(wrongText.utf8))["authEmulator"]?["error"] == "This link is for another action.")
        }
    }
}
