import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird

/// Cloud Messaging: the HTTP v1 send API and topic management (the Instance ID batch form and
/// the per-token v1 form), all needing the admin credential.
struct MessagingRoutes {
    let server: EmulatorServer

    var service: MessagingService { server.emulator.messaging }

    func add(to router: Router<EmulatorRequestContext>) {
        let project = server.ownerRoutes("v1/projects/:project", of: router)
        let instanceID = server.ownerRoutes("iid", of: router, dialect: .instanceID)
        project.post("messages:send") { request, _ in
            var request = request
            let body = try await request.bodyData(limit: server.configuration.maxBodySize)
            let result = try await service.send(FCMSendRequest.parse(body))
            return Response.json(["name": .string(result.name)])
        }
        for (path, subscribe) in [("v1:batchAdd", true), ("v1:batchRemove", false)] {
            instanceID.post(RouterPath(path)) { request, _ in
                var request = request
                do {
                    let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
                    let batch = try FCMTopicBatchRequest.parse(body)
                    let outcomes = try await subscribe
                        ? service.subscribe(tokens: batch.registrationTokens, to: batch.topic)
                        : service.unsubscribe(tokens: batch.registrationTokens, from: batch.topic)
                    return Response.json(FCMTopicBatchResponse(results: outcomes).jsonValue)
                } catch let error as ServiceError {
                    // The Instance ID API answers whole-request errors as {"error": "<CODE>"}.
                    return Response.json(
                        FCMTopicBatchRequest.errorBody(for: error), status: .init(code: error.httpStatus))
                }
            }
        }
        // APNs device tokens → FCM registration tokens (each becomes an emulated iOS device).
        instanceID.post("v1:batchImport") { request, _ in
            var request = request
            let body = try await request.jsonBody(limit: server.configuration.maxBodySize)
            let batch = try APNSTokenImportRequest.parse(body)
            let tokens = try await service.importAPNSTokens(batch)
            let results: [JSONValue] = zip(batch.apnsTokens, tokens).map { apns, token in
                ["apns_token": .string(apns), "status": "OK", "registration_token": .string(token)]
            }
            return Response.json(["results": .array(results)])
        }
        project.post("registrations/:token/topicSubscriptions") { request, context in
            let subscription = try FCMTopicSubscriptionRequest.subscribe(
                tokenSegment: try context.parameters.require("token"),
                query: Self.query(request)
            )
            try await Self.check(service.subscribe(tokens: [subscription.token], to: subscription.topic))
            return Response.json([:])
        }
        project.delete("registrations/:token/topicSubscriptions/:topic") { request, context in
            let subscription = try FCMTopicSubscriptionRequest.unsubscribe(
                tokenSegment: try context.parameters.require("token"),
                topicSegment: try context.parameters.require("topic"),
                query: Self.query(request)
            )
            // Without allow_missing, removing a subscription that does not exist is NOT_FOUND.
            if !subscription.allowMissing, service.isRegistered(subscription.token),
                !service.topics(forToken: subscription.token).contains(subscription.topic)
            {
                throw ServiceError(.notFound, 
                    "Requested entity was not found: the token is not subscribed to '\(subscription.topic)'.")
            }
            try await Self.check(service.unsubscribe(tokens: [subscription.token], from: subscription.topic))
            return Response.json([:])
        }
    }

    static func query(_ request: Request) -> [String: String] {
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        return query
    }

    /// A per-token change that failed becomes that token's error.
    static func check(_ outcomes: [FCMTopicOutcome]) throws {
        if case .failure(let code)? = outcomes.first { throw code.serviceError }
    }
}
