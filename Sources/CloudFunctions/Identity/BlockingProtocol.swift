import Foundation
import Logging

/// The protocol between Authentication and blocking functions.
///
/// Authentication `POST`s `{"data": {"jwt": "<JWT>"}}`; the JWT's payload describes the
/// event (`event_type` `beforeCreate` or `beforeSignIn`, `event_id`, `sign_in_method`,
/// `ip_address`, `user_agent`, `locale`, `user_record` in snake_case, OAuth tokens when asked
/// for). The function answers 200 `{"userRecord": {…changed fields…, "updateMask": "a,b"}}`
/// (`{}` when nothing changes), or refuses with `{"error": {"status", "message", "details"?}}`
/// and the code's HTTP status; an unexpected failure is 500 "An unexpected error occurred.".
package enum BlockingProtocol {
    /// Claim names custom and session claims may not use.
    package static let reservedClaims: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "iat", "iss", "jti", "nbf",
        "nonce", "firebase",
    ]
    /// The most characters of JSON custom (or session) claims may take.
    package static let maximumClaimsLength = 1000
    /// The order of the `updateMask`.
    static let fieldOrder = ["displayName", "photoURL", "disabled", "emailVerified", "customClaims", "sessionClaims"]

    static func respond(
        to request: HTTPSRequest,
        context: RequestContext,
        trigger: BlockingTrigger,
        handler: @escaping @Sendable (AuthBlockingEvent) async throws -> [String: JSONValue]?
    ) async -> HTTPSResponse {
        do {
            let event = try await event(from: request, context: context, trigger: trigger)
            let fields = try await CallableProtocol.withDeadline(context) { try await handler(event) } ?? [:]
            if let problem = problem(in: fields) {
                context.logger.error("the function's answer is not valid", metadata: ["problem": "\(problem)"])
                throw CallableError(.invalidArgument, problem)
            }
            guard !fields.isEmpty else { return .json([:]) }
            var record = fields
            record["updateMask"] = .string(fieldOrder.filter { fields[$0] != nil }.joined(separator: ","))
            return .json(["userRecord": .object(record)])
        } catch let error as CallableError {
            return .error(error)
        } catch {
            context.logger.error("function failed", metadata: ["error": "\(error)"])
            return .json(
                ["error": ["status": "INTERNAL", "message": "An unexpected error occurred."]],
                status: .internalServerError
            )
        }
    }

    /// Reads and checks the call.
    private static func event(
        from request: HTTPSRequest,
        context: RequestContext,
        trigger: BlockingTrigger
    ) async throws(CallableError) -> AuthBlockingEvent {
        guard request.method == .post, request.mediaType == "application/json",
            let body = try? JSONValue(parsing: request.body), let jwt = body["data"]?["jwt"]?.stringValue
        else { throw CallableError(.invalidArgument, "Bad Request") }
        let claims: [String: JSONValue]
        do {
            claims = try await context.tokens.verify(jwt,
                as: .blockingCall(function: context.functionName, region: context.region, receivedAt: context.receivedAt))
        } catch {
            context.logger.warning("refused a blocking call's token", metadata: ["reason": "\(error.reason)"])
            throw CallableError(.invalidArgument, "the call's token is not valid: \(error.reason)")
        }
        guard claims["event_type"]?.stringValue == trigger.event.jwtEventType else {
            throw CallableError(.invalidArgument,
                "the call is a '\(claims["event_type"]?.stringValue ?? "")' event; this function handles "
                    + "'\(trigger.event.jwtEventType)'")
        }
        let user: UserRecord
        do {
            user = try (claims["user_record"] ?? .null).decode(as: UserRecord.self)
        } catch {
            throw CallableError(.invalidArgument, "the call's user_record is not a user: \(CallableProtocol.describe(error))")
        }
        let method = claims["sign_in_method"]?.stringValue
        let rawInfo = claims["raw_user_info"]?.stringValue.flatMap { try? JSONValue(parsing: $0) }
        var credential: AuthBlockingEvent.Credential?
        if let provider = method, ["oauth_id_token", "oauth_access_token", "oauth_refresh_token"].contains(where: {
            claims[$0] != nil
        }) {
            credential = AuthBlockingEvent.Credential(
                providerId: provider,
                idToken: claims["oauth_id_token"]?.stringValue,
                accessToken: claims["oauth_access_token"]?.stringValue,
                refreshToken: claims["oauth_refresh_token"]?.stringValue
            )
        }
        return AuthBlockingEvent(
            data: user,
            eventId: claims["event_id"]?.stringValue ?? "",
            eventType: trigger.event.rawValue + (method.map { ":" + $0 } ?? ""),
            signInMethod: method,
            ipAddress: claims["ip_address"]?.stringValue,
            userAgent: claims["user_agent"]?.stringValue,
            locale: claims["locale"]?.stringValue,
            timestamp: Date(timeIntervalSince1970: claims["iat"]?.numberValue ?? 0),
            additionalUserInfo: AuthBlockingEvent.AdditionalUserInfo(
                providerId: method,
                profile: rawInfo,
                username: rawInfo?["login"]?.stringValue ?? rawInfo?["screen_name"]?.stringValue,
                isNewUser: trigger.event == .beforeCreate
            ),
            credential: credential,
            context: context
        )
    }

    /// What is wrong with an answer's fields, `nil` when nothing is.
    package static func problem(in fields: [String: JSONValue]) -> String? {
        for key in ["customClaims", "sessionClaims"] {
            guard let claims = fields[key]?.objectValue else { continue }
            let reserved = claims.keys.filter(reservedClaims.contains).sorted()
            if !reserved.isEmpty {
                return "\(key) may not use the reserved claim name(s) \(reserved.joined(separator: ", "))"
            }
            let length = JSONValue.object(claims).serialized().count
            if length > maximumClaimsLength {
                return "\(key) take \(length) characters of JSON; at most \(maximumClaimsLength) are allowed"
            }
        }
        return nil
    }

    /// A function's production URL, the audience of the JWTs Authentication sends it.
    package static func audience(project: String, region: String, function: String) -> String {
        "https://\(region)-\(project).cloudfunctions.net/\(function)"
    }

    /// The JWT payload Authentication sends for `user`.
    package static func claims(
        for user: UserRecord,
        event: BlockingTrigger.BlockingEvent,
        project: String,
        audience: String,
        eventId: String,
        signInMethod: String?,
        now: Date,
        ipAddress: String? = nil,
        userAgent: String? = nil,
        locale: String? = nil
    ) -> [String: JSONValue] {
        let issued = floor(now.timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string("https://securetoken.google.com/\(project)"),
            "aud": .string(audience),
            "iat": .number(issued),
            "exp": .number(issued + 3600),
            "sub": .string(user.uid),
            "event_id": .string(eventId),
            "event_type": .string(event.jwtEventType),
            "user_record": userRecord(user),
        ]
        claims["sign_in_method"] = signInMethod.map(JSONValue.string)
        claims["ip_address"] = ipAddress.map(JSONValue.string)
        claims["user_agent"] = userAgent.map(JSONValue.string)
        claims["locale"] = locale.map(JSONValue.string)
        claims["tenant_id"] = user.tenantId.map(JSONValue.string)
        return claims
    }

    /// A user in the JWT's snake_case form, times in milliseconds.
    static func userRecord(_ user: UserRecord) -> JSONValue {
        func millis(_ date: Date?) -> JSONValue? { date.map { .string(String(Int64(($0.timeIntervalSince1970 * 1000).rounded()))) } }
        var record: [String: JSONValue] = [
            "uid": .string(user.uid),
            "email_verified": .bool(user.emailVerified),
            "disabled": .bool(user.disabled),
        ]
        record["email"] = user.email.map(JSONValue.string)
        record["display_name"] = user.displayName.map(JSONValue.string)
        record["photo_url"] = user.photoURL.map(JSONValue.string)
        record["phone_number"] = user.phoneNumber.map(JSONValue.string)
        var metadata: [String: JSONValue] = [:]
        metadata["creation_time"] = millis(user.metadata.creationTime)
        metadata["last_sign_in_time"] = millis(user.metadata.lastSignInTime)
        record["metadata"] = .object(metadata)
        record["provider_data"] = .array(user.providerData.map { provider in
            var info: [String: JSONValue] = ["uid": .string(provider.uid), "provider_id": .string(provider.providerId)]
            info["email"] = provider.email.map(JSONValue.string)
            info["display_name"] = provider.displayName.map(JSONValue.string)
            info["photo_url"] = provider.photoURL.map(JSONValue.string)
            info["phone_number"] = provider.phoneNumber.map(JSONValue.string)
            return .object(info)
        })
        if !user.customClaims.isEmpty { record["custom_claims"] = .object(user.customClaims) }
        record["tenant_id"] = user.tenantId.map(JSONValue.string)
        return .object(record)
    }
}
