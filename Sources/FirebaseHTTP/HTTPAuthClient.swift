import CloudFunctions
import Foundation

/// `context.auth` for a functions binary: the Identity Toolkit admin API
/// (`{base}/v1/projects/{project}/accounts...`) of Google (``productionBaseURL``) or of an
/// emulator, as an administrator, the way the Admin SDKs call it.
public struct HTTPAuthClient: AuthClient {
    /// Google's Identity Toolkit API.
    public static let productionBaseURL = URL(string: "https://identitytoolkit.googleapis.com")!

    let http: AdminHTTP

    /// Creates a client of `baseURL` (where `/v1/projects/...` goes) acting as `credentials`.
    public init(baseURL: URL, credentials: any AdminCredentials) {
        http = AdminHTTP(baseURL: baseURL, credentials: credentials)
    }

    /// Creates a client of an emulator at `emulator`, e.g. `http://127.0.0.1:4400`: the API is
    /// served under `/identitytoolkit.googleapis.com` there.
    public init(emulator: URL, project: String, bearerToken: String = "owner") {
        self.init(baseURL: emulator.appendingPathComponent("identitytoolkit.googleapis.com"),
            credentials: FixedCredentials(project: project, token: bearerToken))
    }

    public func getUser(_ uid: String) async throws -> UserRecord {
        try await lookUp(["localId": [.string(uid)]], describing: "uid \(uid)")
    }

    public func getUserByEmail(_ email: String) async throws -> UserRecord {
        try await lookUp(["email": [.string(email)]], describing: "email \(email)")
    }

    public func createUser(_ properties: UserProperties) async throws -> UserRecord {
        var body = Self.fields(properties)
        body["localId"] = properties.uid.map(JSONValue.string)
        body["disabled"] = properties.disabled.map(JSONValue.bool)
        let created = try await call("/accounts", .object(body))
        guard let uid = created["localId"]?.stringValue else {
            throw AdminHTTPError(status: 200, message: "the create answer has no localId: \(created.serialized())")
        }
        return try await getUser(uid)
    }

    public func updateUser(_ uid: String, _ properties: UserProperties) async throws -> UserRecord {
        var body = Self.fields(properties)
        body["localId"] = .string(uid)
        body["disableUser"] = properties.disabled.map(JSONValue.bool)
        _ = try await call("/accounts:update", .object(body))
        return try await getUser(uid)
    }

    public func deleteUser(_ uid: String) async throws {
        _ = try await call("/accounts:delete", ["localId": .string(uid)])
    }

    public func setCustomUserClaims(_ uid: String, _ claims: [String: JSONValue]?) async throws {
        let attributes = JSONValue.object(claims ?? [:]).serialized()
        _ = try await call("/accounts:update", ["localId": .string(uid), "customAttributes": .string(attributes)])
    }

    private func call(_ path: String, _ body: JSONValue) async throws -> JSONValue {
        let project = try await http.credentials.projectID()
        return try await http.send("POST", "/v1/projects/\(project)\(path)", json: body).json()
    }

    private func lookUp(_ body: JSONValue, describing what: String) async throws -> UserRecord {
        let answer = try await call("/accounts:lookup", body)
        guard let user = answer["users"]?.arrayValue?.first else {
            throw AdminHTTPError(status: 404, message: "USER_NOT_FOUND : no user with \(what)")
        }
        return UserRecord(try user.decode(as: IdentityToolkitUser.self))
    }

    private static func fields(_ properties: UserProperties) -> [String: JSONValue] {
        [
            "email": properties.email.map(JSONValue.string),
            "emailVerified": properties.emailVerified.map(JSONValue.bool),
            "password": properties.password.map(JSONValue.string),
            "displayName": properties.displayName.map(JSONValue.string),
            "photoUrl": properties.photoURL.map(JSONValue.string),
            "phoneNumber": properties.phoneNumber.map(JSONValue.string),
        ].compactMapValues { $0 }
    }
}
