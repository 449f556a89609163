import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird

extension RemoteConfigRoutes {
    /// The client fetch: evaluates the template for the app instance the body describes and
    /// always answers 200 with `state`, `entries` and `templateVersion` (a string), plus an
    /// `ETag` header the client echoes as `If-None-Match`.
    func fetch(_ request: inout Request, context: EmulatorRequestContext, namespace: String) async throws -> Response {
        let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
        guard case .object = body else {
            throw ServiceError.invalidArgument("The fetch body must be a JSON object describing the app instance.")
        }
        func text(_ key: String) -> String? { body[key]?.stringValue }
        func strings(_ key: String) -> [String: String] {
            (body[key]?.objectValue ?? [:]).compactMapValues { value in
                switch value {
                case .string(let text): text
                case .number, .bool: value.serialized()
                default: nil
                }
            }
        }
        let instance = RemoteConfigAppInstance(
            installationID: text("app_instance_id"),
            appID: text("app_id"),
            appVersion: text("app_version"),
            appBuild: text("app_build"),
            platform: text("platform") ?? Self.platform(fromAppID: text("app_id")),
            languageCode: text("language_code"),
            countryCode: text("country_code"),
            userProperties: strings("analytics_user_properties"),
            customSignals: strings("custom_signals"),
            firstOpenTime: text("first_open_time").flatMap { RFC3339Timestamp.date(from: $0) }
        )
        let response = try service.fetch(
            project: try context.parameters.require("project"),
            namespace: RemoteConfigNamespace(rawValue: namespace),
            instance: instance,
            ifNoneMatch: request.headers[.ifNoneMatch]
        )
        let json: JSONValue = [
            "state": .string(response.state.rawValue),
            "entries": .object(response.entries.mapValues(JSONValue.string)),
            "templateVersion": .string(response.templateVersion),
        ]
        return Response.json(json, headers: [.eTag: response.etag])
    }

    /// `1:1234:ios:abcd` → `ios`.
    static func platform(fromAppID appID: String?) -> String? {
        guard let parts = appID?.split(separator: ":"), parts.count >= 3 else { return nil }
        return String(parts[2])
    }
}
