import CloudFunctions
import FirebaseEmulator
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web console: its page at `/`, its files (HTML, CSS, JavaScript modules, shipped as the
/// module's resources) under `/__/console/`, and the stream of changes that keeps it live.
///
/// The console calls the emulator's own REST routes from its origin, so it goes through the
/// same validation as any client, and the admin-only routes accept it (see OwnerOnlyMiddleware).
struct ConsoleRoutes {
    let server: EmulatorServer

    /// The console's files.
    static let directory: URL? = Bundle.module.url(forResource: "Console", withExtension: nil)

    static let contentTypes = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml", "json": "application/json",
    ]

    func add(to router: Router<EmulatorRequestContext>) {
        router.get("/") { _, _ in try Self.file("index.html") }
        router.get("__/console/**") { _, context in
            try Self.file(context.parameters.getCatchAll().joined(separator: "/"))
        }
        // What the console shows first: the project, and each service with the routes it answers.
        router.get("emulator/v1/info") { _, _ in
            let project = server.emulator.project
            let instance = server.emulator.defaultDatabaseInstance
            return Response.json([
                "project": .string(project),
                "databaseInstance": .string(instance),
                "databaseInstances": .array(Set(server.emulator.database.namespaces() + [instance]).sorted().map(JSONValue.string)),
                "services": [
                    ["name": "Remote Config", "routes": .array([
                        "GET|PUT /v1/projects/\(project)/remoteConfig", "GET /v1/projects/\(project)/remoteConfig:listVersions",
                        "POST /v1/projects/\(project)/remoteConfig:rollback",
                        "POST /v1/projects/\(project)/namespaces/firebase:fetch",
                    ].map(JSONValue.string))],
                    ["name": "Realtime Database", "routes": .array([
                        "GET|PUT|PATCH|POST|DELETE /{path}.json?ns=\(instance)", "GET /{path}.json (text/event-stream)",
                    ].map(JSONValue.string))],
                    ["name": "Authentication", "routes": .array([
                        "POST /identitytoolkit.googleapis.com/v1/accounts:signUp|signInWithPassword|signInWithCustomToken|signInWithIdp|lookup|update|delete",
                        "POST /securetoken.googleapis.com/v1/token",
                    ].map(JSONValue.string))],
                    ["name": "Cloud Messaging", "routes": .array([
                        "POST /v1/projects/\(project)/messages:send", "POST /iid/v1:batchAdd|batchRemove",
                        "POST /emulator/v1/projects/\(project)/devices",
                    ].map(JSONValue.string))],
                    ["name": "Analytics", "routes": .array([
                        "POST /emulator/v1/projects/\(project)/apps/{appId}/events",
                    ].map(JSONValue.string))],
                    ["name": "Functions", "routes": .array([
                        "ANY /\(project)/{region}/{function}", "POST /emulator/v1/projects/\(project)/deployments",
                        "GET /emulator/v1/projects/\(project)/events", "GET /emulators",
                    ].map(JSONValue.string))],
                ],
                "googleEmulators": .array([("Firestore", server.google.firestore), ("Pub/Sub", server.google.pubsub)]
                    .map { name, emulator in Self.describe(name, emulator) }),
            ])
        }
        // `event: change` with `{"areas": [...]}` after each commit that changed something, and a
        // comment every 15 s so that proxies and browsers keep the connection.
        router.get("emulator/v1/projects/:project/changes") { _, _ in
            let subscription = server.emulator.store.changes.subscribe()
            return Response.eventStream(opening: ": connected\n\n") { frames in
                for await _ in subscription.signals {
                    let areas = subscription.take().sorted().map(JSONValue.string)
                    frames.yield(Response.eventFrame("change", data: JSONValue.object(["areas": .array(areas)]).serialized()))
                }
            }
        }
    }

    /// One of Google's emulators as the console's overview shows it.
    static func describe(_ name: String, _ emulator: GoogleEmulator) -> JSONValue {
        var entry: [String: JSONValue] = ["name": .string(name), "variable": .string(emulator.kind.variable),
            "restarts": .number(Double(emulator.restarts))]
        switch emulator.status {
        case .idle: entry["status"] = "not started: no function triggers on it"
        case .starting: entry["status"] = "starting"
        case .running(let address):
            entry["status"] = "running"
            entry["address"] = .string("\(address)")
        case .external(let address):
            entry["status"] = "running elsewhere"
            entry["address"] = .string("\(address)")
        case .unavailable(let error): entry["status"] = .string("unavailable: \(error.message)")
        }
        return .object(entry)
    }

    /// A console file, by its path below the console's directory.
    static func file(_ path: String) throws -> Response {
        let parts = path.split(separator: "/")
        guard let directory, !parts.isEmpty, !parts.contains(where: { $0.hasPrefix(".") }),
            let type = contentTypes[String(parts.last!.split(separator: ".").last ?? "")]
        else { throw ServiceError(.notFound, "no console file \(path)") }
        let url = parts.reduce(directory) { $0.appendingPathComponent(String($1)) }
        guard let data = try? Data(contentsOf: url) else { throw ServiceError(.notFound, "no console file \(path)") }
        return Response(status: .ok, headers: headers(contentType: type), body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// What a console file is sent with: never inside another site's frame (whose clicks would
    /// go to the emulator as the console's own), its type as stated.
    static func headers(contentType: String) -> HTTPFields {
        [
            .contentType: contentType, .cacheControl: "no-cache",
            HTTPField.Name("X-Frame-Options")!: "DENY",
            HTTPField.Name("Content-Security-Policy")!: "frame-ancestors 'none'",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ]
    }
}
