import CloudEvents
import CloudFunctions
import FirebaseEmulator
import FirebaseHTTP
import Foundation
import Hummingbird
import ProcessSupport

/// What Google's emulators call, and where clients find them:
/// - `POST /functions/projects/{p}/triggers/{id}`: the Firestore emulator's trigger events
///   (the path firebase-tools serves them on), committed to the outbox before the answer;
/// - `GET /emulators`: every emulated service's address, as the firebase-tools hub answers it;
/// - `DELETE /emulator/v1/projects/{p}/databases/{db}/documents`: the Firestore emulator's
///   reset, passed on with the database's triggers paused, so that it fires no delete events.
struct GoogleEmulatorRoutes {
    let server: EmulatorServer

    func add(to router: Router<EmulatorRequestContext>) {
        router.post("functions/projects/:project/triggers/:trigger") { request, context in
            var request = request
            let body = try await request.bodyData(limit: server.configuration.maxBodySize)
            let headers = request.headers.map { ($0.name.canonicalName, $0.value) }
            let posted: CloudEvent
            do {
                posted = try CloudEvent(httpMessage: CloudEventHTTPMessage(headers: headers, body: body))
            } catch {
                throw ServiceError(.invalidArgument, "not a CloudEvent: \(error)")
            }
            let events = try FirestoreEvents.events(from: posted, project: server.emulator.project)
            // Committed before the answer: once the Firestore emulator hears 200, the event is
            // delivered at least once, however this process ends.
            try await server.emulator.ingest(events.filter(server.emulator.wants))
            return Response.json(["status": "acknowledged"])
        }
        router.delete("emulator/v1/projects/:project/databases/:database/documents") { _, context in
            let cleared: HTTPExchange.Response?
            do {
                cleared = try await server.google.clearFirestore(
                    project: try context.parameters.require("project"), database: try context.parameters.require("database"))
            } catch let error as GoogleEmulatorError {
                throw ServiceError(.unavailable, error.message)
            }
            // Never started: nothing is stored.
            guard let cleared else { return Response.json([:]) }
            return Response(status: .init(code: cleared.status),
                headers: [.contentType: cleared.headers["content-type"] ?? "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: cleared.body)))
        }
        router.get("emulators") { _, _ in
            Response.json(.object(server.emulatorAddresses().mapValues { address in
                ["host": .string(address.host), "port": .number(Double(address.port))]
            }))
        }
    }
}
