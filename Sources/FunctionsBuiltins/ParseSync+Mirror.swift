import CloudFunctions
import Foundation
import Logging

/// Database → Parse: the trigger that sends writes made by new clients to Parse's REST API.
extension ParseSync {
    /// Fields Parse sets itself or takes from the URL, never sent in a body.
    static let reservedFields: Set<String> = ["objectId", "createdAt", "updatedAt", "className", "__type"]

    /// Mirrors one write at `{path}/{objectId}`, unless the sync made it or a newer write has
    /// replaced it.
    ///
    /// - Throws: when Parse cannot be reached or answers that it is unavailable (the runtime
    ///   retries the event); a refusal of the data is logged instead.
    func mirror(className: String, change: Change<DataSnapshot>, context: EventContext) async throws {
        guard let objectId = context.params["objectId"], let path = objectPath(className, objectId) else { return }
        var logger = context.logger
        logger[metadataKey: "parseObject"] = "\(className)/\(objectId)"
        let database = context.database
        let after = change.after.val()
        let digest = Self.digest(after)
        let marker = try await database.get(markerPath(className, objectId))
        if marker.stringValue == digest {
            logger.debug("skipped: the change came from Parse")
            return
        }
        let resource = "/classes/\(className)/\(Self.escaped(objectId))"
        let context: JSONValue = [Self.contextKey: .string(digest)]
        let current = DataSnapshot.normalize(try await database.get(path))
        if current != after {
            try await deleteRemovedFields(change: change, current: current, at: resource, context: context,
                logger: logger)
            return
        }
        do {
            switch (change.before.val(), after) {
            case (_, .null):
                do {
                    try await server.send("DELETE", resource, context: context)
                } catch let error as ParseError where error.code == ParseError.objectNotFound {
                    logger.debug("already deleted in Parse")
                }
            case (let before, .object(let fields)):
                let sent = fields.filter { !Self.reservedFields.contains($0.key) }
                if before.isNull {
                    try await create(className, objectId, at: resource, sent, context: context)
                } else {
                    var update = sent
                    for key in (before.objectValue ?? [:]).keys where fields[key] == nil && !Self.reservedFields.contains(key) {
                        update[key] = ["__op": "Delete"]
                    }
                    do {
                        try await server.send("PUT", resource, body: .object(update), context: context)
                    } catch let error as ParseError where error.code == ParseError.objectNotFound {
                        try await create(className, objectId, at: resource, sent, context: context)
                    }
                }
            default:
                logger.error("not mirrored: a Parse object must be a JSON object", metadata: ["value": "\(after)"])
                return
            }
        } catch let error as ParseError where !error.isTransient {
            var hint = ""
            if error.code == 105, error.message.contains("objectId") {
                hint = " (objects created in the database keep their key as objectId: start Parse Server with allowCustomObjectId)"
            }
            logger.error("Parse refused the change; it is not retried\(hint)", metadata: ["error": "\(error)"])
            return
        }
        logger.info("mirrored to Parse")
        if !marker.isNull {
            // The mark has served; without it, writing the same value again later is mirrored too.
            try await database.ref(markerPath(className, objectId)).transaction { current -> JSONValue? in
                current == marker ? JSONValue.null : Optional.none
            }
        }
    }

    /// For a write that a newer one replaced: that one is mirrored by its own event, which
    /// sends the new value and deletes the fields it removed, but not those this write removed
    /// (its `before` no longer had them). Those still absent are deleted here. (A still newer
    /// write that adds one of them back between the read and this call is mirrored by its own
    /// event, which may reach Parse first: the field is then missing in Parse until it changes
    /// again. The window is the length of one REST call.)
    private func deleteRemovedFields(
        change: Change<DataSnapshot>, current: JSONValue, at resource: String, context: JSONValue, logger: Logger
    ) async throws {
        guard let before = change.before.val().objectValue, let now = current.objectValue else {
            logger.debug("skipped: a newer write replaced this one")
            return
        }
        let after = change.after.val().objectValue ?? [:]
        let removed = before.keys.filter { after[$0] == nil && now[$0] == nil && !Self.reservedFields.contains($0) }
        guard !removed.isEmpty else {
            logger.debug("skipped: a newer write replaced this one")
            return
        }
        let update = JSONValue.object(Dictionary(uniqueKeysWithValues: removed.map { ($0, ["__op": "Delete"]) }))
        do {
            try await server.send("PUT", resource, body: update, context: context)
            logger.info("mirrored to Parse the fields a replaced write removed", metadata: ["fields": "\(removed.sorted())"])
        } catch let error as ParseError where error.code == ParseError.objectNotFound {
            logger.debug("skipped: a newer write replaced this one, and Parse has no such object")
        } catch let error as ParseError where !error.isTransient {
            logger.error("Parse refused the change; it is not retried", metadata: ["error": "\(error)"])
        }
    }

    /// Creates the object with its database key as `objectId`, or updates it when Parse
    /// already has one with that id.
    private func create(
        _ className: String, _ objectId: String, at resource: String, _ fields: [String: JSONValue], context: JSONValue
    ) async throws {
        var body = fields
        body["objectId"] = .string(objectId)
        do {
            try await server.send("POST", "/classes/\(className)", body: .object(body), context: context)
        } catch let error as ParseError where error.code == ParseError.duplicateValue {
            try await server.send("PUT", resource, body: .object(fields), context: context)
        }
    }

    static func escaped(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#")))
            ?? segment
    }
}
