import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird
import NIOCore

/// The Remote Config REST API (`/v1/projects/{project}/remoteConfig...`, also under
/// `/namespaces/{namespace}/`) and the client fetch (`.../namespaces/{namespace}:fetch`).
///
/// Template management needs the admin credential; every template response carries an
/// `ETag` header; a publish without a matching `If-Match` answers 412.
struct RemoteConfigRoutes {
    let server: EmulatorServer

    var service: RemoteConfigService { server.emulator.remoteConfig }

    func add(to router: Router<EmulatorRequestContext>) {
        let templates = server.ownerRoutes("v1/projects/:project", of: router)
        addTemplateRoutes(to: templates, namespace: { _ in .firebase })
        addTemplateRoutes(to: templates.group("namespaces/:namespace")) {
            RemoteConfigNamespace(rawValue: try $0.parameters.require("namespace"))
        }
        // `namespaces/firebase:fetch`, what devices call: the namespace and the method share
        // one path segment.
        router.post("v1/projects/:project/namespaces/:namespace") { request, context in
            let segment = try context.parameters.require("namespace")
            var request = request
            if let namespace = Self.namespace(segment, method: "fetch") {
                return try await fetch(&request, context: context, namespace: namespace)
            }
            if let namespace = Self.namespace(segment, method: "streamFetchInvalidations") {
                return try await streamInvalidations(&request, context: context, namespace: namespace)
            }
            throw HTTPError(.notFound)
        }
    }

    private func addTemplateRoutes(
        to group: RouterGroup<EmulatorRequestContext>,
        namespace: @escaping @Sendable (EmulatorRequestContext) throws -> RemoteConfigNamespace
    ) {
        group.get("remoteConfig") { request, context in
            let project = try context.parameters.require("project")
            if let number = request.uri.queryParameters.get("versionNumber") {
                guard let version = Int64(number) else {
                    throw ServiceError(.invalidArgument, "versionNumber must be an integer, not '\(number)'")
                }
                return template(try service.template(version: version, project: project, namespace: namespace(context)))
            }
            return template(try service.template(project: project, namespace: namespace(context)))
        }
        group.put("remoteConfig") { request, context in
            var request = request
            let body = try await request.bodyData(limit: server.configuration.maxBodySize)
            let query = request.uri.queryParameters
            let validateOnly = (query.get("validate_only") ?? query.get("validateOnly")) == "true"
            let published = try await service.publish(
                RemoteConfigTemplate.decode(from: body),
                project: try context.parameters.require("project"),
                namespace: namespace(context),
                ifMatch: request.headers[.ifMatch],
                validateOnly: validateOnly
            )
            return template(published)
        }
        group.get("remoteConfig:listVersions") { request, context in
            let query = request.uri.queryParameters
            let list = try service.listVersions(
                project: try context.parameters.require("project"),
                namespace: namespace(context),
                pageSize: try query.get("pageSize").map { try Self.integer($0, name: "pageSize") },
                pageToken: query.get("pageToken"),
                endVersionNumber: try query.get("endVersionNumber").map {
                    Int64(try Self.integer($0, name: "endVersionNumber"))
                },
                startTime: try query.get("startTime").map { try Self.time($0, name: "startTime") },
                endTime: try query.get("endTime").map { try Self.time($0, name: "endTime") }
            )
            return Response.json(try JSONValue(encoding: list))
        }
        group.post("remoteConfig:rollback") { request, context in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            let number: Int64? = switch body["versionNumber"] {
            case .string(let text)?: Int64(text)
            case .number(let value)?: Int64(exactly: value)
            default: nil
            }
            guard let number else {
                throw ServiceError(.invalidArgument, 
                    "versionNumber is required: a positive integer, as a number or a string")
            }
            return template(try await service.rollback(
                to: number,
                project: try context.parameters.require("project"),
                namespace: namespace(context)
            ))
        }
        group.get("remoteConfig:downloadDefaults") { request, context in
            let format = try RemoteConfigDefaultsFormat(queryValue: request.uri.queryParameters.get("format"))
            let text = try service.downloadDefaults(
                format: format,
                project: try context.parameters.require("project"),
                namespace: namespace(context)
            )
            return Response(
                status: .ok,
                headers: [.contentType: format.contentType],
                body: .init(byteBuffer: ByteBuffer(string: text))
            )
        }
    }

    private func template(_ response: RemoteConfigTemplateResponse) -> Response {
        Response.json(response.template.jsonValue, headers: [.eTag: response.etag])
    }

    /// `firebase:fetch` → `firebase` for the method `fetch`.
    static func namespace(_ segment: String, method: String) -> String? {
        let suffix = ":" + method
        guard segment.hasSuffix(suffix), segment.count > suffix.count else { return nil }
        return String(segment.dropLast(suffix.count))
    }

    static func integer(_ text: String, name: String) throws -> Int {
        guard let value = Int(text) else {
            throw ServiceError(.invalidArgument, "\(name) must be an integer, not '\(text)'")
        }
        return value
    }

    static func time(_ text: String, name: String) throws -> Date {
        guard let date = RFC3339Timestamp.date(from: text) else {
            throw ServiceError(.invalidArgument, "\(name) must be an RFC 3339 timestamp, not '\(text)'")
        }
        return date
    }
}
