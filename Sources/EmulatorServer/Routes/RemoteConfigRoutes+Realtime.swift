import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

extension RemoteConfigRoutes {
    /// The realtime stream (`POST .../namespaces/{namespace}:streamFetchInvalidations`): a
    /// long-lived chunked 200 that writes `{"latestTemplateVersionNumber": "N"}`, one flat object per
    /// chunk, as soon as a version newer than the body's `lastKnownVersionNumber` exists or is
    /// published. It ends when the client disconnects, the server shuts down gracefully, or the
    /// service shuts down.
    ///
    /// The body is the iOS SDK's: gzipped, lenient JSON, with `lastKnownVersionNumber` as a string
    /// or a number (missing means 0); `project`, `appId` and the rest are accepted and unused.
    ///
    /// - Throws: 400 `INVALID_ARGUMENT` for a body that is not an object or a version that is not a
    ///   non-negative integer.
    func streamInvalidations(
        _ request: inout Request, context: EmulatorRequestContext, namespace: String
    ) async throws -> Response {
        let body = try await deviceBody(&request, context: context)
        let lastKnown: Int64? =
            switch body["lastKnownVersionNumber"] {
            case nil, .null?: 0
            case .string(let text)?: Int64(text)
            case .number(let value)?: Int64(exactly: value)
            default: nil
            }
        guard let lastKnown, lastKnown >= 0 else {
            throw ServiceError(.invalidArgument, 
                "lastKnownVersionNumber must be a non-negative integer, as a number or a string.")
        }
        let versions = service.versions(
            project: try clientProject(context), namespace: RemoteConfigNamespace(rawValue: namespace),
            after: lastKnown)
        let (messages, continuation) = AsyncStream<Int64>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await context.onDisconnect { continuation.finish() }
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody { writer in
                try await withGracefulShutdownHandler {
                    try await Self.forward(versions, through: (messages, continuation), to: &writer)
                } onGracefulShutdown: {
                    continuation.finish()
                }
            }
        )
    }

    /// Writes each version as one chunk until the versions end or the client disconnects (which
    /// finishes `messages`).
    static func forward(
        _ versions: AsyncStream<Int64>,
        through messages: (stream: AsyncStream<Int64>, continuation: AsyncStream<Int64>.Continuation),
        to writer: inout any ResponseBodyWriter
    ) async throws {
        let continuation = messages.continuation
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await version in versions { continuation.yield(version) }
                continuation.finish()
            }
            for await version in messages.stream {
                try await writer.write(ByteBuffer(string: #"{"latestTemplateVersionNumber": "\#(version)"}"#))
            }
            // Ends the version stream, which unregisters it from the service.
            group.cancelAll()
        }
        try await writer.finish(nil)
    }
}
