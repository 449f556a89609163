import CloudFunctions
import FirebaseEmulator
import Hummingbird

extension DatabaseRoutes {
    /// The most reads one batch may hold.
    static let maximumBatchReads = 1000

    /// `POST /emulator/v1/databases/{namespace}:batchGet` (admin only): many reads in one request,
    /// which the functions workers this emulator runs send for their handlers' concurrent reads.
    ///
    /// The body is `{"reads": [{"path": "leaderboard/p1", "etag": true}, ...]}`; the answer
    /// `{"reads": [...]}` holds, in the same order, `{"value": V, "etag": "..."}` (the ETag when
    /// asked for) or `{"error": {"code", "message", "status"}}` for a read that failed alone (a bad
    /// path). The Realtime Database has no such call; the REST `GET` of each path answers the same.
    func addBatchGet(to router: Router<EmulatorRequestContext>) {
        server.ownerRoutes("emulator/v1/databases", of: router).post("{namespace}:batchGet") { request, context in
            var request = request
            let namespace = try context.parameters.require("namespace")
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            guard let reads = body["reads"]?.arrayValue else {
                throw ServiceError(.invalidArgument, "The body must be {\"reads\": [{\"path\": ..., \"etag\": true}]}")
            }
            guard reads.count <= Self.maximumBatchReads else {
                throw ServiceError(.invalidArgument, "A batch holds at most \(Self.maximumBatchReads) reads, not \(reads.count)")
            }
            var answers: [JSONValue] = []
            answers.reserveCapacity(reads.count)
            for read in reads {
                answers.append(answer(to: read, namespace: namespace))
            }
            return Response.json(["reads": .array(answers)])
        }
    }

    /// One read's answer.
    private func answer(to read: JSONValue, namespace: String) -> JSONValue {
        do throws(ServiceError) {
            guard let path = read["path"]?.stringValue else {
                throw ServiceError(.invalidArgument, "Each read needs a \"path\" string")
            }
            guard read["etag"]?.boolValue == true else {
                return ["value": try service.get(namespace: namespace, path: path, queryParameters: [:])]
            }
            let (value, etag) = try service.getWithETag(namespace: namespace, path: path)
            return ["value": value, "etag": .string(etag)]
        } catch {
            return ["error": ["code": .number(Double(error.httpStatus)), "message": .string(error.message),
                "status": .string(error.status)]]
        }
    }
}
