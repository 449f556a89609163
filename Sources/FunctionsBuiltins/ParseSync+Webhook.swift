import CloudFunctions
import Foundation
import HTTPTypes
import Logging

/// Parse → database: the webhook Parse Server calls after each save and delete.
extension ParseSync {
    static let webhookKeyField = HTTPField.Name("X-Parse-Webhook-Key")!

    /// Answers one webhook: `{"success": true}` when handled (or deliberately skipped), and
    /// `{"error": …}` with a 4xx status for a request that is not a webhook of a synced class.
    /// Parse Server logs failed `afterSave` webhooks and fails the client's delete when an
    /// `afterDelete` one fails.
    func receive(_ request: HTTPSRequest, context: RequestContext) async -> HTTPSResponse {
        guard request.method == .post else { return Self.answer(.methodNotAllowed, error: "send webhooks with POST") }
        if let key = server.webhookKey {
            guard let sent = request.headerFields[Self.webhookKeyField], Self.constantTimeEquals(sent, key) else {
                return Self.answer(.unauthorized, error: "the X-Parse-Webhook-Key header is missing or wrong")
            }
        }
        guard let body = try? JSONValue(parsing: request.body), let trigger = body["triggerName"]?.stringValue,
            let object = body["object"]?.objectValue
        else {
            return Self.answer(.badRequest, error: "expected a Parse webhook: {\"triggerName\", \"object\", …}")
        }
        guard let className = object["className"]?.stringValue, let objectId = object["objectId"]?.stringValue else {
            return Self.answer(.badRequest, error: "the webhook's object has no className or objectId")
        }
        guard let path = objectPath(className, objectId) else {
            return Self.answer(.badRequest, error: "class '\(className)' is not synced by \(context.functionName)")
        }
        if let problem = DatabaseKeyRule.problem(objectId) {
            return Self.answer(.badRequest, error: "objectId '\(objectId)' cannot be a database key: \(problem)")
        }
        var logger = context.logger
        logger[metadataKey: "parseObject"] = "\(className)/\(objectId)"
        if body["context"]?[Self.contextKey] != nil {
            logger.debug("skipped: the change came from the database")
            return Self.answer(.ok)
        }
        let database = context.database
        do {
            switch trigger {
            case "afterSave":
                let value = try Self.databaseValue(of: object)
                let current = DataSnapshot.normalize(try await database.get(path))
                if current == DataSnapshot.normalize(value) {
                    logger.debug("skipped: the database already holds this object")
                } else if let held = current["updatedAt"]?.stringValue, let sent = value["updatedAt"]?.stringValue,
                    held > sent
                {
                    logger.debug("skipped: the database holds a newer version", metadata: ["updatedAt": "\(held)"])
                } else if let newer = await newerInParse(className, objectId, than: value, logger: logger) {
                    logger.debug("skipped: Parse holds a newer version", metadata: ["updatedAt": "\(newer)"])
                } else {
                    try await database.update("", [path: value, markerPath(className, objectId): .string(Self.digest(value))])
                    logger.info("saved from Parse")
                }
            case "afterDelete":
                if try await database.get(path).isNull {
                    logger.debug("skipped: the object is not in the database")
                } else {
                    try await database.update("", [path: .null, markerPath(className, objectId): .string(Self.digest(.null))])
                    logger.info("deleted from Parse")
                }
            default:
                return Self.answer(.badRequest, error: "\(context.functionName) takes afterSave and afterDelete webhooks, not \(trigger)")
            }
        } catch let error as InvalidParseObject {
            return Self.answer(.badRequest, error: error.description)
        } catch {
            logger.error("cannot write the change to the database", metadata: ["error": "\(error)"])
            return Self.answer(.serviceUnavailable, error: "the database is unavailable")
        }
        return Self.answer(.ok)
    }

    /// Whether Parse has since changed or deleted the object a webhook sent: a webhook that
    /// arrives late (after a later save's, or after the database's own change was mirrored to
    /// Parse) must not put its older version back. Returns Parse's newer `updatedAt`
    /// (`"deleted"` when the object is gone), or `nil` when the webhook's version is current or
    /// Parse cannot be asked (the webhook is then applied, as before asking).
    func newerInParse(_ className: String, _ objectId: String, than value: JSONValue, logger: Logger) async -> String? {
        guard let sent = value["updatedAt"]?.stringValue else { return nil }
        do {
            let held = try await server.send("GET", "/classes/\(className)/\(Self.escaped(objectId))")
            guard let updatedAt = held["updatedAt"]?.stringValue, updatedAt > sent else { return nil }
            return updatedAt
        } catch let error as ParseError where error.code == ParseError.objectNotFound {
            return "deleted"
        } catch {
            logger.warning("cannot ask Parse whether the webhook's object is current; it is applied",
                metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The database value of a Parse object: its fields (with Parse's encodings) and its
    /// `createdAt`/`updatedAt`; `className` and `objectId` are the path.
    static func databaseValue(of object: [String: JSONValue]) throws(InvalidParseObject) -> JSONValue {
        var fields = object
        for key in ["className", "objectId", "__type"] { fields[key] = nil }
        let value = JSONValue.object(fields)
        try checkKeys(value, at: "")
        return value
    }

    private static func checkKeys(_ value: JSONValue, at path: String) throws(InvalidParseObject) {
        switch value {
        case .object(let members):
            for (key, child) in members {
                if let problem = DatabaseKeyRule.problem(key) {
                    throw InvalidParseObject(description: "field '\(path)\(key)' cannot be a database key: \(problem)")
                }
                try checkKeys(child, at: "\(path)\(key).")
            }
        case .array(let elements):
            for (index, child) in elements.enumerated() { try checkKeys(child, at: "\(path)\(index).") }
        default:
            break
        }
    }

    static func answer(_ status: HTTPResponse.Status, error: String? = nil) -> HTTPSResponse {
        // `success` must be `true`, not an object: Parse would send an object to the client
        // in place of its own answer.
        let body: JSONValue = error.map { ["error": .string($0)] } ?? ["success": true]
        return HTTPSResponse(status: status, headerFields: [.contentType: "application/json; charset=utf-8"],
            body: body.serializedData())
    }

    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// A Parse object the database cannot hold.
struct InvalidParseObject: Error, CustomStringConvertible {
    var description: String
}
