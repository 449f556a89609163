import CloudFunctions
import FirebaseHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// A stand-in for Parse Server's REST API (Parse Server itself cannot be installed here), with
/// the behaviour the sync relies on: classes created, updated and deleted with an application
/// id (and the master key, which the sync sends), custom object ids (`allowCustomObjectId`),
/// Parse's error codes and statuses, webhooks registered at `/hooks/triggers` and called after
/// each save and delete, awaited before the client is answered, with the client's
/// `X-Parse-Cloud-Context` as `context` and the `X-Parse-Webhook-Key` header. It can be taken
/// down (every call answered 503) to stand for an outage.
final class ParseStandIn: Sendable {
    /// One REST call the stand-in answered.
    struct Call: Sendable {
        var method: String
        var path: String
        var master: Bool
        var context: JSONValue?
        var body: JSONValue?
        var status: Int
    }

    struct State {
        var objects: [String: [String: JSONValue]] = [:]
        var hooks: [String: String] = [:]
        var calls: [Call] = []
        var down = false
        var lastUpdate = Date(timeIntervalSince1970: 0)
        var waiters: [(condition: @Sendable (State) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let applicationId = "parse-app"
    let masterKey = "parse-master"
    let webhookKey = "parse-hook-key"
    let state = Mutex(State())

    /// Every call, in the order answered.
    var calls: [Call] { state.withLock { $0.calls } }

    /// The calls the sync made (with the master key) that changed something.
    var syncWrites: [Call] {
        calls.filter { $0.master && $0.method != "GET" && !$0.path.hasPrefix("/parse/hooks") && (200..<300).contains($0.status) }
    }

    /// The object stored under a class and id.
    func object(_ className: String, _ id: String) -> [String: JSONValue]? {
        state.withLock { $0.objects["\(className)/\(id)"] }
    }

    /// Takes the server down (every call answered 503) or brings it back.
    func setDown(_ down: Bool) { change { $0.down = down } }

    /// Waits until `condition` holds.
    func wait(until condition: @escaping @Sendable (State) -> Bool) async {
        await withCheckedContinuation { continuation in
            let holds = state.withLock { state in
                if condition(state) { return true }
                state.waiters.append((condition, continuation))
                return false
            }
            if holds { continuation.resume() }
        }
    }

    private func change<T>(_ body: (inout State) -> T) -> T {
        let (result, ready) = state.withLock { state in
            let result = body(&state)
            let waiters = state.waiters
            state.waiters = []
            var ready: [CheckedContinuation<Void, Never>] = []
            for waiter in waiters {
                if waiter.condition(state) { ready.append(waiter.continuation) } else { state.waiters.append(waiter) }
            }
            return (result, ready)
        }
        for continuation in ready { continuation.resume() }
        return result
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        for method in [HTTPRequest.Method.get, .post, .put, .delete] {
            router.on("parse/**", method: method) { request, context in
                let body = try await request.body.collect(upTo: 1 << 20)
                let path = request.uri.path
                let (status, answer, master, sent, cloudContext) = await self.answer(request, path: path,
                    body: Data(body.readableBytesView))
                self.change { $0.calls.append(Call(method: request.method.rawValue, path: path, master: master,
                    context: cloudContext, body: sent, status: status)) }
                return Response(status: .init(code: status), headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: answer.serializedData())))
            }
        }
        return router
    }

    private static let applicationIdField = HTTPField.Name("X-Parse-Application-Id")!
    private static let masterKeyField = HTTPField.Name("X-Parse-Master-Key")!
    private static let contextField = HTTPField.Name("X-Parse-Cloud-Context")!

    private func answer(_ request: Request, path: String, body: Data)
        async -> (Int, JSONValue, Bool, JSONValue?, JSONValue?)
    {
        let master = request.headers[Self.masterKeyField] == masterKey
        let sent = body.isEmpty ? nil : try? JSONValue(parsing: body)
        if state.withLock({ $0.down }) { return (503, ["error": "Service Unavailable"], master, sent, nil) }
        guard request.headers[Self.applicationIdField] == applicationId else {
            return (403, ["error": "unauthorized"], master, sent, nil)
        }
        var cloudContext: JSONValue = [:]
        if let header = request.headers[Self.contextField] {
            guard let parsed = try? JSONValue(parsing: Data(header.utf8)), parsed.objectValue != nil else {
                return (400, ["code": 107, "error": "Invalid object for context."], master, sent, nil)
            }
            cloudContext = parsed
        }
        let parts = path.split(separator: "/").map(String.init)
        if parts.count == 3, parts[1] == "hooks", parts[2] == "triggers", request.method == .post {
            guard master else { return (403, ["error": "unauthorized: master key is required"], master, sent, nil) }
            guard let className = sent?["className"]?.stringValue, let trigger = sent?["triggerName"]?.stringValue,
                let url = sent?["url"]?.stringValue
            else { return (400, ["code": 143, "error": "invalid hook declaration"], master, sent, nil) }
            change { $0.hooks["\(className)/\(trigger)"] = url }
            return (201, sent ?? [:], master, sent, nil)
        }
        guard parts.count >= 3, parts[1] == "classes" else {
            return (404, ["error": "not found"], master, sent, cloudContext)
        }
        let className = parts[2]
        let id = parts.count > 3 ? parts[3].removingPercentEncoding ?? parts[3] : nil
        let (status, answer, hook) = write(request.method, className: className, id: id, body: sent)
        if let hook {
            let delivered = await callHook(className: className, trigger: hook.trigger, object: hook.object,
                original: hook.original, context: cloudContext, master: master)
            // Parse logs a failed afterSave webhook, but fails the client's delete.
            if !delivered, hook.trigger == "afterDelete" {
                return (400, ["code": 141, "error": "afterDelete webhook failed"], master, sent, cloudContext)
            }
        }
        return (status, answer, master, sent, cloudContext)
    }

    private typealias Hook = (trigger: String, object: JSONValue, original: JSONValue?)

    private func write(_ method: HTTPRequest.Method, className: String, id: String?, body: JSONValue?)
        -> (Int, JSONValue, Hook?)
    {
        change { state in
            let key = id.map { "\(className)/\($0)" }
            let stored = key.flatMap { state.objects[$0] }
            func json(_ id: String, _ fields: [String: JSONValue]) -> JSONValue {
                var object = fields
                object["objectId"] = .string(id)
                object["className"] = .string(className)
                return .object(object)
            }
            switch method {
            case .get:
                guard let id, let stored else { return (404, ["code": 101, "error": "Object not found."], nil) }
                return (200, json(id, stored), nil)
            case .post where id == nil:
                guard var fields = body?.objectValue else { return (400, ["code": 107, "error": "invalid JSON"], nil) }
                let newId = fields.removeValue(forKey: "objectId")?.stringValue ?? String(UUID().uuidString.prefix(10))
                if state.objects["\(className)/\(newId)"] != nil {
                    return (400, ["code": 137, "error": "A duplicate value for a field with unique values was provided"], nil)
                }
                if let invalid = Self.invalidField(fields) {
                    return (400, ["code": 105, "error": .string("Invalid field name: \(invalid).")], nil)
                }
                let now = Self.tick(&state)
                fields["createdAt"] = .string(now)
                fields["updatedAt"] = .string(now)
                state.objects["\(className)/\(newId)"] = fields
                return (201, ["objectId": .string(newId), "createdAt": .string(now)],
                    ("afterSave", json(newId, fields), nil))
            case .put:
                guard let id, let key, var fields = stored else {
                    return (404, ["code": 101, "error": "Object not found."], nil)
                }
                guard let changes = body?.objectValue else { return (400, ["code": 107, "error": "invalid JSON"], nil) }
                if let invalid = Self.invalidField(changes) {
                    return (400, ["code": 105, "error": .string("Invalid field name for update: \(invalid)")], nil)
                }
                for (name, value) in changes where name != "createdAt" && name != "updatedAt" {
                    if value["__op"]?.stringValue == "Delete" {
                        fields.removeValue(forKey: name)
                    } else {
                        fields[name] = value
                    }
                }
                let now = Self.tick(&state)
                fields["updatedAt"] = .string(now)
                state.objects[key] = fields
                return (200, ["updatedAt": .string(now)], ("afterSave", json(id, fields), json(id, stored!)))
            case .delete:
                guard let id, let key, let stored else { return (404, ["code": 101, "error": "Object not found."], nil) }
                state.objects[key] = nil
                return (200, [:], ("afterDelete", json(id, stored), nil))
            default:
                return (404, ["error": "not found"], nil)
            }
        }
    }

    /// Parse's field-name rule: a letter, then letters, digits or `_`.
    private static func invalidField(_ fields: [String: JSONValue]) -> String? {
        fields.keys.first { name in
            guard let first = name.unicodeScalars.first, CharacterSet.letters.contains(first) else { return true }
            return !name.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "_" }
        }
    }

    /// A new `updatedAt`, a millisecond after the last one at least, as Parse writes it.
    private static func tick(_ state: inout State) -> String {
        let now = max(Date(), state.lastUpdate.addingTimeInterval(0.001))
        state.lastUpdate = now
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: now)
    }

    /// Calls the class's webhook for `trigger`, as Parse Server does; whether it answered 2xx
    /// with `{"success"}`.
    private func callHook(className: String, trigger: String, object: JSONValue, original: JSONValue?,
        context: JSONValue, master: Bool) async -> Bool
    {
        guard let url = state.withLock({ $0.hooks["\(className)/\(trigger)"] }).flatMap(URL.init(string:)) else {
            return true
        }
        var body: [String: JSONValue] = ["triggerName": .string(trigger), "object": object, "master": .bool(master),
            "context": context, "ip": "127.0.0.1", "headers": ["content-type": "application/json"], "log": [:]]
        if let original { body["original"] = original }
        guard let response = try? await HTTPExchange.send("POST", url,
            headers: [("Content-Type", "application/json"), ("X-Parse-Webhook-Key", webhookKey)],
            body: JSONValue.object(body).serializedData())
        else { return false }
        return (200..<300).contains(response.status) && (try? JSONValue(parsing: response.body))?["success"] != nil
    }
}
