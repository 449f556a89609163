import CloudEvents
import Foundation
import CloudFunctions

/// Converts a Parse `_User` export into an `accounts:batchCreate` request.
///
/// Accepts `{"results": [...]}` or a bare array. Per user: `objectId` → `localId`, `email` (lower-cased; else a
/// `username` that is an email) → `email`, `emailVerified`, `username` → `displayName` (when it is not the
/// email), `_hashed_password` or `bcryptPassword` → `passwordHash` (standard base64 of the `$2…` string),
/// `createdAt` (ISO string or `{"__type": "Date", "iso": …}`) → `createdAt` ms string, and
/// `authData.<provider>.id` → `providerUserInfo`. Tokens, sessions and `updatedAt` are dropped.
public enum ParseUserExport {
    /// The Firebase provider id for each Parse `authData` key that maps to one.
    public static let providerIds = [
        "facebook": "facebook.com", "twitter": "twitter.com", "google": "google.com", "github": "github.com",
        "apple": "apple.com",
    ]

    /// Builds `{"hashAlgorithm": "BCRYPT", "users": [...]}` from an export.
    ///
    /// - Throws: `INVALID_PARSE_EXPORT : <reason>` when the export or one of its users is malformed.
    public static func batchCreateRequest(from export: JSONValue) throws -> JSONValue {
        guard let records = export["results"]?.arrayValue ?? export.arrayValue else {
            throw invalid("expected {\"results\": [...]} or an array of _User objects")
        }
        let users = try records.enumerated().map { index, record in try user(from: record, index: index) }
        return .object(["hashAlgorithm": "BCRYPT", "users": .array(users)])
    }

    /// Builds the request from export JSON text.
    ///
    /// - Throws: `INVALID_PARSE_EXPORT : …` when the text is not JSON or not an export.
    public static func batchCreateRequest(parsing data: Data) throws -> JSONValue {
        guard let export = try? JSONValue(parsing: data) else { throw invalid("the export is not JSON") }
        return try batchCreateRequest(from: export)
    }

    private static func user(from record: JSONValue, index: Int) throws -> JSONValue {
        guard let fields = record.objectValue else { throw invalid("user \(index) is not an object") }
        guard let objectId = fields["objectId"]?.stringValue, !objectId.isEmpty else {
            throw invalid("user \(index) has no objectId")
        }
        var user: [String: JSONValue] = ["localId": .string(objectId)]
        let username = fields["username"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let email = (fields["email"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            ?? username.flatMap { AuthUserValidation.isValidEmail($0) ? $0 : nil })?.lowercased()
        user["email"] = email.map(JSONValue.string)
        if let username, username.lowercased() != email { user["displayName"] = .string(username) }
        if let verified = fields["emailVerified"]?.boolValue { user["emailVerified"] = .bool(verified) }
        if let hash = (fields["_hashed_password"] ?? fields["bcryptPassword"])?.stringValue, !hash.isEmpty {
            user["passwordHash"] = .string(Data(hash.utf8).base64EncodedString())
        }
        if let created = fields["createdAt"], !created.isNull {
            guard let date = parseDate(created) else { throw invalid("user \(index) has a malformed createdAt") }
            user["createdAt"] = .string(String(AuthTimestamp.milliseconds(date)))
        }
        let providers = providerInfo(fields["authData"])
        if !providers.isEmpty { user["providerUserInfo"] = .array(providers) }
        return .object(user)
    }

    private static func providerInfo(_ authData: JSONValue?) -> [JSONValue] {
        guard let authData = authData?.objectValue else { return [] }
        return authData.keys.sorted().compactMap { key in
            guard let providerId = providerIds[key], let rawId = idString(authData[key]?["id"]) else { return nil }
            return .object(["providerId": .string(providerId), "rawId": .string(rawId)])
        }
    }

    private static func idString(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)? where !text.isEmpty: text
        case .number(let number)?: JSONValue.number(number).serialized()
        default: nil
        }
    }

    private static func parseDate(_ value: JSONValue) -> Date? {
        if let text = value.stringValue { return RFC3339Timestamp.date(from: text) }
        if value["__type"]?.stringValue == "Date", let iso = value["iso"]?.stringValue {
            return RFC3339Timestamp.date(from: iso)
        }
        return nil
    }

    private static func invalid(_ reason: String) -> ServiceError {
        ServiceError(.invalidArgument, "INVALID_PARSE_EXPORT : \(reason)")
    }
}
