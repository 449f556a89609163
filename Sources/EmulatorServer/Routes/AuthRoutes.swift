import CloudFunctions
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import ProcessSupport

/// Authentication as the Firebase Auth emulator serves it: Identity Toolkit under
/// `/identitytoolkit.googleapis.com/v1/...`, token refresh under `/securetoken.googleapis.com/v1/token`,
/// and `/emulator/v1/projects/{p}/accounts|config`.
///
/// `Authorization: Bearer owner` makes a call privileged (the admin SDKs send it); other calls are
/// client calls, which need an API key (`?key=` or `X-Goog-Api-Key`) and may only act on the user of
/// their ID token. Errors use the Identity Toolkit body, whose `message` is the code the SDKs map
/// (`EMAIL_EXISTS`, `USER_NOT_FOUND : …`).
struct AuthRoutes {
    let server: EmulatorServer

    var service: AuthService { server.emulator.auth }

    func add(to router: Router<EmulatorRequestContext>) {
        let v1 = router.group("identitytoolkit.googleapis.com/v1")
        let project = v1.group("projects/:project")
        // Creating, listing and deleting accounts in bulk: the Admin SDKs' calls.
        let admin = server.ownerRoutes("projects/:project", of: v1, dialect: .identityToolkit)
        post(v1, "accounts:signUp") { request, body in try await signUp(request, body) }
        post(admin, "accounts") { request, body in try await signUp(request, body) }
        post(v1, "accounts:signInWithPassword") { request, body in
            try requireAPIKey(request)
            return try encoded(await service.clientSignInWithPassword(email: body["email"]?.stringValue,
                password: body["password"]?.stringValue))
        }
        post(v1, "accounts:signInWithCustomToken") { request, body in
            try requireAPIKey(request)
            return try encoded(await service.clientSignInWithCustomToken(body["token"]?.stringValue))
        }
        post(v1, "accounts:signInWithIdp") { request, body in
            try requireAPIKey(request)
            return try encoded(await service.clientSignInWithIdp(postBody: body["postBody"]?.stringValue,
                requestUri: body["requestUri"]?.stringValue,
                returnIdpCredential: body["returnIdpCredential"]?.boolValue ?? false))
        }
        for group in [v1, project] {
            post(group, "accounts:lookup") { request, body in try lookup(request, body) }
            post(group, "accounts:update") { request, body in try await update(request, body) }
            post(group, "accounts:delete") { request, body in try await delete(request, body) }
            post(group, "accounts:sendOobCode") { request, body in try await sendOobCode(request, body) }
            post(group, "accounts:resetPassword") { request, body in
                if !request.isAdmin { try requireAPIKey(request) }
                return try await resetPassword(code: body["oobCode"]?.stringValue,
                    newPassword: body["newPassword"]?.stringValue)
            }
            post(group, "accounts:signInWithEmailLink") { request, body in
                if !request.isAdmin { try requireAPIKey(request) }
                return try await signInWithEmailLink(email: body["email"]?.stringValue,
                    code: body["oobCode"]?.stringValue, idToken: body["idToken"]?.stringValue)
            }
        }
        post(admin, "accounts:batchCreate") { _, body in try await service.importUsers(body).json }
        post(admin, "accounts:batchDelete") { _, body in
            let ids = try decode([String].self, body["localIds"] ?? .array([]), field: "localIds")
            let failures = try await service.batchDelete(localIds: ids, force: body["force"]?.boolValue ?? false)
            var answer: [String: JSONValue] = ["kind": "identitytoolkit#BatchDeleteAccountsResponse"]
            if !failures.isEmpty { answer["errors"] = try JSONValue(encoding: failures) }
            return .object(answer)
        }
        admin.get("accounts:batchGet") { request, _ in
            try await authResponse {
                let query = request.uri.queryParameters
                let maxResults = try query.get("maxResults").map { text in
                    guard let number = Int(text) else {
                        throw ServiceError(.invalidArgument, "INVALID_ARGUMENT : maxResults")
                    }
                    return number
                }
                return try service.listUsers(maxResults: maxResults, pageToken: query.get("nextPageToken")).json
            }
        }
        router.post("securetoken.googleapis.com/v1/token") { request, _ in
            var request = request
            let data = try await request.bodyData(limit: server.configuration.maxBodySize)
            return try await authResponse {
                try requireAPIKey(request)
                let form = Self.form(data, contentType: request.headers[.contentType])
                return try await JSONValue(encoding: service.refresh(grantType: form["grant_type"] ?? form["grantType"],
                    refreshToken: form["refresh_token"] ?? form["refreshToken"]))
            }
        }
        let (emulator, owner) = server.emulatorProjectRoutes(of: router)
        owner.delete("accounts") { _, _ in
            try await service.deleteAllUsers()
            return Response.json([:])
        }
        // `{"format": "firebase"|"parse", "export": <the file>, "hashAlgorithm"?}`: a whole export
        // file, as `functions auth:import` reads it (the console's import).
        owner.post("accounts:import") { request, _ in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            guard let format = body["format"]?.stringValue.flatMap(AuthService.ExportFormat.init(rawValue:)) else {
                throw ServiceError(.invalidArgument, "format must be firebase or parse")
            }
            guard let export = body["export"] else { throw ServiceError(.invalidArgument, "export (the file's JSON) is missing") }
            let outcome = try await service.importExport(export, format: format, hashAlgorithm: body["hashAlgorithm"]?.stringValue)
            return Response.json(["imported": .number(Double(outcome.imported.count)),
                "errors": .array(outcome.failures.map(\.json))])
        }
        // The codes the emulator would have mailed, for tests and the console to read.
        emulator.get("oobCodes") { _, _ in
            try await authResponse { .object(["oobCodes": .array(try service.oobCodes().map(\.json))]) }
        }
        owner.delete("oobCodes") { _, _ in
            try await service.deleteOobCodes()
            return Response.json([:])
        }
        emulator.get("config") { _, _ in Response.json(service.emulatorConfig.json) }
        owner.patch("config") { request, _ in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            let privacy = body["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"]
            guard privacy == nil || privacy?.boolValue != nil else {
                throw ServiceError(.invalidArgument, "emailPrivacyConfig.enableImprovedEmailPrivacy must be a boolean")
            }
            return Response.json(try await service.updateEmulatorConfig(enableImprovedEmailPrivacy: privacy?.boolValue).json)
        }
    }

    // MARK: Operations

    private func signUp(_ request: Request, _ body: JSONValue) async throws -> JSONValue {
        let privileged = request.isAdmin
        if !privileged { try requireAPIKey(request) }
        let signUp = try decode(AuthSignUpRequest.self, body, field: nil)
        return try encoded(await service.clientSignUp(signUp, privileged: privileged))
    }

    private func lookup(_ request: Request, _ body: JSONValue) throws -> JSONValue {
        let users: [AuthUser]
        if request.isAdmin, body["idToken"] == nil {
            users = try service.lookup(decode(AuthLookupRequest.self, body, field: nil))
        } else {
            try requireAPIKey(request)
            users = [try service.lookup(idToken: try idToken(body))]
        }
        var answer: [String: JSONValue] = ["kind": "identitytoolkit#GetAccountInfoResponse"]
        // The key is absent when nothing matched: the Node admin SDK relies on it.
        if !users.isEmpty { answer["users"] = .array(users.map { $0.userInfoJSON() }) }
        return .object(answer)
    }

    private func update(_ request: Request, _ body: JSONValue) async throws -> JSONValue {
        if let code = body["oobCode"]?.stringValue, !code.isEmpty {
            // A verification or e-mail change code, which needs no ID token (the mail's link is
            // enough): the answer tells its holder no more than Firebase's does.
            if !request.isAdmin { try requireAPIKey(request) }
            let (user, used) = try await service.applyOobCode(code)
            let info = user.userInfoJSON(includePasswordHash: false)
            var answer: [String: JSONValue] = ["kind": "identitytoolkit#SetAccountInfoResponse"]
            for name in ["localId", "email", "emailVerified", "displayName", "photoUrl", "providerUserInfo"] {
                answer[name] = info[name]
            }
            answer["newEmail"] = used.newEmail.map(JSONValue.string)
            return .object(answer)
        }
        let change = try decode(AuthUpdateRequest.self, body, field: nil)
        var user: AuthUser
        var session: AuthSession?
        if request.isAdmin {
            user = try await service.update(change)
        } else {
            try requireAPIKey(request)
            (user, session) = try await service.clientUpdate(change, idToken: try idToken(body))
        }
        var answer = user.userInfoJSON(includePasswordHash: false).objectValue ?? [:]
        answer["kind"] = "identitytoolkit#SetAccountInfoResponse"
        if let session {
            answer["idToken"] = .string(session.idToken)
            answer["refreshToken"] = .string(session.refreshToken)
            answer["expiresIn"] = .string(session.expiresIn)
        }
        return .object(answer)
    }

    private func delete(_ request: Request, _ body: JSONValue) async throws -> JSONValue {
        if request.isAdmin, body["idToken"] == nil {
            try await service.delete(uid: body["localId"]?.stringValue)
        } else {
            try requireAPIKey(request)
            try await service.delete(idToken: try idToken(body))
        }
        return ["kind": "identitytoolkit#DeleteAccountResponse"]
    }

    /// Makes a code: with `returnOobLink` (administrators), answers it and its link; otherwise
    /// "mails" it, which here means logging the link and keeping the code for `GET …/oobCodes`.
    private func sendOobCode(_ request: Request, _ body: JSONValue) async throws -> JSONValue {
        let privileged = request.isAdmin
        if !privileged { try requireAPIKey(request) }
        let ask = try decode(AuthOobCodeRequest.self, body, field: nil)
        let (email, code) = try await service.sendOobCode(ask, privileged: privileged, linkBase: linkBase(request))
        var answer: [String: JSONValue] = ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(email)]
        if let code {
            if ask.returnOobLink == true {
                answer["oobCode"] = .string(code.code)
                answer["oobLink"] = .string(code.link)
            } else {
                server.logger.notice("e-mail action \(code.kind.rawValue) for \(code.email): \(code.link)")
            }
        }
        return .object(answer)
    }

    /// Checks a code (no `newPassword`), or sets the new password with a reset code.
    private func resetPassword(code: String?, newPassword: String?) async throws -> JSONValue {
        let used: AuthOobCode
        if let newPassword, !newPassword.isEmpty {
            used = try await service.resetPassword(code: code, newPassword: newPassword)
        } else {
            used = try service.checkOobCode(code)
        }
        var answer: [String: JSONValue] = ["kind": "identitytoolkit#ResetPasswordResponse",
            "requestType": .string(used.kind.rawValue)]
        if used.kind != .emailSignIn { answer["email"] = .string(used.email) }
        answer["newEmail"] = used.newEmail.map(JSONValue.string)
        return .object(answer)
    }

    private func signInWithEmailLink(email: String?, code: String?, idToken: String?) async throws -> JSONValue {
        let (user, session, isNewUser) = try await service.signInWithEmailLink(email: email, code: code, idToken: idToken)
        return [
            "kind": "identitytoolkit#EmailLinkSigninResponse", "localId": .string(user.localId),
            "email": .string(user.email ?? ""), "isNewUser": .bool(isNewUser), "idToken": .string(session.idToken),
            "refreshToken": .string(session.refreshToken), "expiresIn": .string(session.expiresIn),
        ]
    }

    /// Where links to this emulator point: the address the caller reached it at.
    func linkBase(_ request: Request) -> String {
        if let authority = request.head.authority, !authority.isEmpty { return "http://\(authority)" }
        return server.emulatorAddresses()["auth"].map { "http://\($0)" } ?? "http://127.0.0.1"
    }

    // MARK: Plumbing


    /// A POST route whose JSON body becomes the JSON answer, with Identity Toolkit errors.
    private func post(
        _ group: RouterGroup<EmulatorRequestContext>,
        _ path: String,
        _ handle: @escaping @Sendable (Request, JSONValue) async throws -> JSONValue
    ) {
        group.post(RouterPath(path)) { request, _ in
            var request = request
            let body: JSONValue
            do {
                body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            } catch let error as ServiceError {
                return Self.errorResponse(error)
            }
            return try await authResponse { try await handle(request, body == .null ? [:] : body) }
        }
    }

    private func authResponse(_ work: () async throws -> JSONValue) async throws -> Response {
        do {
            return Response.json(try await work())
        } catch let error as ServiceError {
            return Self.errorResponse(error)
        }
    }

    /// `{"error": {"code", "message", "errors": [{"message", "reason", "domain"}], "status"}}`.
    static func errorResponse(_ error: ServiceError) -> Response {
        var body = ServiceErrorMiddleware.googleBody(error)
        if case .object(var outer) = body, case .object(var inner)? = outer["error"] {
            inner["errors"] = [["message": .string(error.message), "reason": "invalid", "domain": "global"]]
            outer["error"] = .object(inner)
            body = .object(outer)
        }
        return .json(body, status: .init(code: error.httpStatus))
    }

    private func requireAPIKey(_ request: Request) throws {
        let key = request.uri.queryParameters.get("key") ?? request.headers[HTTPField.Name("X-Goog-Api-Key")!]
        guard let key, !key.isEmpty else {
            throw ServiceError(.permissionDenied, "The request is missing a valid API key.")
        }
    }

    private func idToken(_ body: JSONValue) throws -> String {
        guard let token = body["idToken"]?.stringValue, !token.isEmpty else {
            throw ServiceError(.invalidArgument, "MISSING_ID_TOKEN")
        }
        return token
    }

    private func decode<T: Decodable>(_ type: T.Type, _ json: JSONValue, field: String?) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: json.serializedData())
        } catch {
            throw ServiceError(.invalidArgument,
                "INVALID_ARGUMENT : Invalid JSON payload received" + (field.map { " in \($0)" } ?? "")
                + ": \(Self.describe(error))")
        }
    }

    private func encoded(_ value: some Encodable) throws -> JSONValue {
        try JSONValue(encoding: value)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return (path.isEmpty ? "" : "\(path): ") + context.debugDescription
        default:
            return "\(error)"
        }
    }

    /// The fields of a form-encoded or JSON body.
    static func form(_ data: Data, contentType: String?) -> [String: String] {
        if let json = try? JSONValue(parsing: data), let object = json.objectValue {
            return object.compactMapValues { $0.stringValue }
        }
        return AuthService.formFields(String(decoding: data, as: UTF8.self))
    }
}
