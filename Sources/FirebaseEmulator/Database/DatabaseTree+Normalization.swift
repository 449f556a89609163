import Foundation
import CloudFunctions

extension DatabaseTree {
    /// The largest string value, in UTF-8 bytes (10 MB).
    public static let maximumStringLength = 10 * 1024 * 1024

    /// Validates written data and converts it to storage form.
    ///
    /// Resolves server values (`.sv`) against `existing` (the stored node at the same location),
    /// unwraps `{".value": v, ".priority": p}`, drops `.priority`, turns arrays into index-keyed
    /// objects and removes `null` members and empty objects.
    /// - Parameters:
    ///   - depth: the number of keys from the database root to the location being written.
    ///   - now: the time `{".sv": "timestamp"}` resolves to.
    /// - Throws: `ServiceError.invalidArgument` for invalid keys, depth, strings, numbers or server values.
    public static func normalized(_ value: JSONValue, existing: JSONValue, depth: Int, now: Date) throws(ServiceError)
        -> JSONValue
    {
        switch value {
        case .null, .bool:
            return value
        case .number(let number):
            guard number.isFinite else { throw DatabaseErrorMessage.invalidData("numbers must be finite") }
            return value
        case .string(let string):
            guard string.utf8.count <= maximumStringLength else {
                throw DatabaseErrorMessage.invalidData(
                    "string values must be at most \(maximumStringLength) bytes of UTF-8")
            }
            return value
        case .array(let elements):
            var children: [String: JSONValue] = [:]
            for (index, element) in elements.enumerated() where !element.isNull {
                let key = String(index)
                let child = try normalizedChild(element, existing: existing[key] ?? .null, depth: depth + 1, now: now)
                if !child.isNull { children[key] = child }
            }
            return children.isEmpty ? .null : .object(children)
        case .object(let members):
            return try normalized(members: members, existing: existing, depth: depth, now: now)
        }
    }

    private static func normalized(members: [String: JSONValue], existing: JSONValue, depth: Int, now: Date)
        throws(ServiceError) -> JSONValue
    {
        if let serverValue = members[".sv"] {
            guard members.count == 1 || (members.count == 2 && members[".priority"] != nil) else {
                throw DatabaseErrorMessage.invalidData("a server value object must have no other members")
            }
            return try resolved(serverValue: serverValue, existing: existing, now: now)
        }
        if let wrapped = members[".value"] {
            guard members.count == 1 || (members.count == 2 && members[".priority"] != nil) else {
                throw DatabaseErrorMessage.invalidData("an object with \".value\" may only also have \".priority\"")
            }
            return try normalized(wrapped, existing: existing, depth: depth, now: now)
        }
        var children: [String: JSONValue] = [:]
        children.reserveCapacity(members.count)
        for (key, member) in members where key != ".priority" {
            try DatabaseKey.validate(key)
            if member.isNull { continue }
            let child = try normalizedChild(member, existing: existing[key] ?? .null, depth: depth + 1, now: now)
            if !child.isNull { children[key] = child }
        }
        return children.isEmpty ? .null : .object(children)
    }

    private static func normalizedChild(_ value: JSONValue, existing: JSONValue, depth: Int, now: Date)
        throws(ServiceError) -> JSONValue
    {
        guard depth <= DatabasePath.maximumDepth else {
            throw DatabaseErrorMessage.invalidData(
                "data is nested deeper than the maximum of \(DatabasePath.maximumDepth) levels")
        }
        return try normalized(value, existing: existing, depth: depth, now: now)
    }

    /// The value a server-value placeholder (the content of `.sv`) stands for.
    static func resolved(serverValue: JSONValue, existing: JSONValue, now: Date) throws(ServiceError) -> JSONValue {
        if serverValue == .string("timestamp") {
            return .number((now.timeIntervalSince1970 * 1000).rounded(.down))
        }
        if case .object(let operation) = serverValue, operation.count == 1,
            case .number(let delta)? = operation["increment"], delta.isFinite
        {
            guard case .number(let current) = existing else { return .number(delta) }
            let sum = current + delta
            guard sum.isFinite else { throw DatabaseErrorMessage.invalidData("increment result is not finite") }
            return .number(sum)
        }
        throw DatabaseErrorMessage.invalidData("unsupported server value \(serverValue.serialized(sortedKeys: true))")
    }
}
