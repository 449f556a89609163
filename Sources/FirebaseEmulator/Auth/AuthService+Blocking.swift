import CloudFunctions
import Foundation
import Synchronization

extension AuthService {
    /// What the blocking functions made of a sign-up or sign-in.
    struct BlockingOutcome {
        /// The user with their changes.
        var user: AuthUser
        /// Claims for this session's ID token.
        var sessionClaims: [String: JSONValue]
    }

    /// Sets the blocking functions client sign-ups and sign-ins run (`nil`: none).
    package func setBlockingFunctions(_ functions: BlockingFunctions?) {
        blocking.withLock { $0 = functions }
    }

    /// Runs the deployed blocking function of each event in turn on `user`, each seeing the
    /// changes of the one before.
    ///
    /// - Throws: `BLOCKING_FUNCTION_ERROR_RESPONSE : ((…))` when a function refuses, fails,
    ///   does not answer within its timeout, or answers something that is not a valid response.
    func runBlockingFunctions(
        _ events: [BlockingTrigger.BlockingEvent],
        on user: AuthUser,
        signInMethod: String
    ) async throws -> BlockingOutcome {
        var outcome = BlockingOutcome(user: user, sessionClaims: [:])
        guard let functions = blocking.withLock({ $0 }) else { return outcome }
        for event in events {
            guard let endpoint = functions.endpoints[event] else { continue }
            let claims = BlockingProtocol.claims(
                for: outcome.user.cloudUserRecord, event: event, project: project, audience: endpoint.audience,
                eventId: UUID().uuidString, signInMethod: signInMethod, now: clock.now
            )
            let body: JSONValue = ["data": ["jwt": .string(JSONWebToken.unsigned(claims))]]
            func refused(_ reason: String) -> ServiceError {
                ServiceError(.invalidArgument, "BLOCKING_FUNCTION_ERROR_RESPONSE : ((HTTP request to \(endpoint.url) \(reason)))")
            }
            let reply: (status: Int, body: Data)?
            do {
                reply = try await clock.run(until: clock.now.addingTimeInterval(endpoint.timeout.seconds)) {
                    try await functions.call(endpoint, body.serializedData())
                }
            } catch {
                throw refused("failed: \(error)")
            }
            guard let answer = reply else {
                throw refused("did not answer within \(endpoint.timeout.seconds.formatted()) s")
            }
            let text = String(decoding: answer.body, as: UTF8.self)
            guard (200..<300).contains(answer.status) else {
                throw refused("returned HTTP error \(answer.status): \(text)")
            }
            do {
                try apply(answer.body, event: event, to: &outcome)
            } catch {
                throw refused("returned an invalid response (\(error.reason)): \(text)")
            }
        }
        return outcome
    }

    /// Applies a function's `{"userRecord": {…, "updateMask"}}` (or `{}`).
    private func apply(
        _ body: Data,
        event: BlockingTrigger.BlockingEvent,
        to outcome: inout BlockingOutcome
    ) throws(InvalidAnswer) {
        guard case .object(let answer)? = try? JSONValue(parsing: body) else { throw InvalidAnswer("not a JSON object") }
        guard let recordValue = answer["userRecord"] else { return }
        guard case .object(let record) = recordValue else { throw InvalidAnswer("userRecord is not an object") }
        let mask = record["updateMask"]?.stringValue.map { $0.split(separator: ",").map(String.init) }
            ?? record.keys.filter { $0 != "updateMask" }
        var fields: [String: JSONValue] = [:]
        for name in mask {
            // The Firebase SDK writes photoURL; other producers photoUrl.
            let key = name == "photoUrl" ? "photoURL" : name
            fields[key] = record[name] ?? record[key] ?? .null
        }
        func claims(_ value: JSONValue) throws(InvalidAnswer) -> [String: JSONValue] {
            switch value {
            case .object(let claims): return claims
            case .string(let text):
                guard let claims = (try? JSONValue(parsing: text))?.objectValue else {
                    throw InvalidAnswer("claims are not a JSON object")
                }
                return claims
            default: throw InvalidAnswer("claims are not a JSON object")
            }
        }
        var user = outcome.user
        for (key, value) in fields {
            switch (key, value) {
            case ("displayName", .string(let text)): user.displayName = text
            case ("displayName", .null): user.displayName = nil
            case ("photoURL", .string(let text)): user.photoURL = text
            case ("photoURL", .null): user.photoURL = nil
            case ("disabled", .bool(let flag)): user.disabled = flag
            case ("emailVerified", .bool(let flag)): user.emailVerified = flag
            case ("customClaims", let value): user.customClaims = try claims(value)
            case ("sessionClaims", let value) where event == .beforeSignIn: outcome.sessionClaims = try claims(value)
            default: throw InvalidAnswer("'\(key)' cannot be set to \(value.serialized())")
            }
        }
        let changed: [String: JSONValue] = [
            "customClaims": .object(user.customClaims), "sessionClaims": .object(outcome.sessionClaims),
        ]
        if let problem = BlockingProtocol.problem(in: changed) { throw InvalidAnswer(problem) }
        outcome.user = user
    }

    /// What is wrong with a function's answer.
    private struct InvalidAnswer: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
