import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird

extension RemoteConfigRoutes {
    /// The client fetch: evaluates the template for the app instance the body describes and
    /// always answers 200 with `state`, `entries` and `templateVersion` (a string), plus an
    /// `ETag` header the client echoes as `If-None-Match`.
    ///
    /// The body may be gzipped and may be the iOS SDK's lenient JSON (see ``deviceBody(_:context:)``).
    /// A throttled instance gets 429 `RESOURCE_EXHAUSTED` (only when a fetch limit is set).
    func fetch(_ request: inout Request, context: EmulatorRequestContext, namespace: String) async throws -> Response {
        let body = try await deviceBody(&request, context: context)
        let device: RemoteConfigFetchRequest
        do {
            device = try body.decode(as: RemoteConfigFetchRequest.self)
        } catch {
            throw ServiceError(.invalidArgument, "Invalid JSON payload received. \(error)")
        }
        // `platform_version` (the OS version) is read by no condition, so it is accepted and unused.
        let instance = RemoteConfigAppInstance(
            installationID: device.appInstanceId,
            appID: device.appId,
            appVersion: device.appVersion,
            appBuild: device.appBuild,
            platform: device.platform ?? Self.platform(fromAppID: device.appId),
            languageCode: device.languageCode,
            countryCode: device.countryCode,
            userProperties: device.analyticsUserProperties,
            customSignals: device.customSignals,
            firstOpenTime: device.firstOpenTime.flatMap { RFC3339Timestamp.date(from: $0) }
        )
        let response = try service.fetch(
            project: try clientProject(context),
            namespace: RemoteConfigNamespace(rawValue: namespace),
            instance: instance,
            ifNoneMatch: request.headers[.ifNoneMatch]
        )
        return Response.json(try JSONValue(encoding: response), headers: [.eTag: response.etag])
    }

    /// The JSON object a device sent: gunzipped when it starts with the gzip magic bytes (whatever
    /// `Content-Encoding` says), then parsed as JSON or, failing that, as the iOS SDK's lenient form.
    ///
    /// - Throws: 400 `INVALID_ARGUMENT` when the body is not an object in either syntax; 413 over the
    ///   body limit (compressed or inflated).
    func deviceBody(_ request: inout Request, context: EmulatorRequestContext) async throws -> JSONValue {
        let limit = server.configuration.maxBodySize
        let data = try GzipBody.decoded(try await request.bodyData(limit: limit), limit: limit)
        let body: JSONValue
        if let strict = try? JSONValue(parsing: data) {
            body = strict
        } else {
            do {
                body = try LenientJSONParser.parse(data)
            } catch {
                throw ServiceError(.invalidArgument, "Invalid JSON payload received. The body is not JSON: \(error).")
            }
        }
        guard case .object = body else {
            throw ServiceError(.invalidArgument, "The request body must be a JSON object describing the app instance.")
        }
        return body
    }

    /// The project of a device request. Android and the iOS realtime stream name the project by its
    /// number (the GCM sender ID); the emulator serves one project, so a number means that project.
    func clientProject(_ context: EmulatorRequestContext) throws -> String {
        let project = try context.parameters.require("project")
        return !project.isEmpty && project.allSatisfy(\.isASCII) && project.allSatisfy(\.isNumber)
            ? server.emulator.project : project
    }

    /// `1:1234:ios:abcd` → `ios`.
    static func platform(fromAppID appID: String?) -> String? {
        guard let parts = appID?.split(separator: ":"), parts.count >= 3 else { return nil }
        return String(parts[2])
    }
}
