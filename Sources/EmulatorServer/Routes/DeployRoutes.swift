import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird

/// Deployments: `POST /emulator/v1/projects/{p}/deployments` starts a functions binary and
/// routes events to it; `GET .../functions` lists what is deployed and the worker's state.
struct DeployRoutes {
    let server: EmulatorServer

    func add(to router: Router<EmulatorRequestContext>) {
        let group = router.group("emulator/v1/projects/:project")
        group.post("deployments") { request, _ in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            guard let path = body["binary"]?.stringValue, !path.isEmpty else {
                throw ServiceError.invalidArgument("binary is required: the path of the functions executable")
            }
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw ServiceError.invalidArgument("binary '\(path)' is not an executable file")
            }
            let manifest: FunctionsManifest
            do {
                manifest = try FunctionsManifest(json: (body["manifest"] ?? .null).serializedData())
            } catch {
                throw ServiceError.invalidArgument("manifest is not a v1alpha1 functions manifest: \(error)")
            }
            let only = body["only"]?.arrayValue?.compactMap(\.stringValue)
            let deployment: DeploymentManager.Deployment
            do {
                deployment = try await server.deployments.deploy(binary: URL(fileURLWithPath: path), manifest: manifest,
                    only: only)
            } catch let error as RegistryError {
                throw ServiceError.invalidArgument("\(error)")
            } catch let error as WorkerError {
                throw ServiceError.failedPrecondition("the functions worker did not start: \(error)")
            }
            return Response.json(try Self.describe(deployment))
        }
        group.get("functions") { _, _ in
            guard let deployment = server.deployments.deployment else {
                return Response.json(["endpoints": [:], "worker": .null])
            }
            return Response.json(try Self.describe(deployment))
        }
    }

    static func describe(_ deployment: DeploymentManager.Deployment) throws -> JSONValue {
        let worker = deployment.supervisor.status
        return [
            "endpoints": try JSONValue(encoding: deployment.manifest.endpoints),
            "skipped": .array(deployment.skipped.map(JSONValue.string)),
            "deployTime": .string(RFC3339Timestamp.string(from: deployment.time)),
            "worker": [
                "binary": .string(deployment.supervisor.binary.path),
                "status": .string(worker.status.rawValue),
                "restarts": .number(Double(worker.restarts)),
                "url": worker.url.map { .string($0.absoluteString) } ?? .null,
            ],
        ]
    }
}
