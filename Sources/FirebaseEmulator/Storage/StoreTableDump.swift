import CloudFunctions
import Foundation
import GRDB

/// Copies table rows to and from JSON, for exports: each row is an object of its columns;
/// blobs are written as `{"base64": "..."}`.
enum StoreTableDump {
    /// The rows of `table` matching `filter` (an SQL condition with `?` placeholders).
    static func rows(
        _ db: GRDB.Database,
        table: String,
        filter: String? = nil,
        arguments: StatementArguments = []
    ) throws -> JSONValue {
        let sql = "SELECT * FROM \(table)" + (filter.map { " WHERE \($0)" } ?? "")
        return .array(try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            var object: [String: JSONValue] = [:]
            for (column, value) in row {
                object[column] = json(value)
            }
            return .object(object)
        })
    }

    /// Inserts rows written by ``rows(_:table:filter:arguments:)``, with the columns of
    /// `setting` set to its values whatever the rows say (the importing project's, say).
    ///
    /// - Throws: `INVALID_ARGUMENT` naming `file` when the rows are not objects of scalar columns.
    static func insert(
        _ db: GRDB.Database, table: String, rows: JSONValue, file: String, setting: [String: JSONValue] = [:]
    ) throws {
        guard case .array(let list) = rows else {
            throw ServiceError(.invalidArgument, "\(file): '\(table)' must be an array of rows")
        }
        for (index, row) in list.enumerated() {
            guard case .object(var columns) = row, !columns.isEmpty else {
                throw ServiceError(.invalidArgument, "\(file): row \(index) of '\(table)' is not an object")
            }
            columns.merge(setting) { _, set in set }
            let names = columns.keys.sorted()
            var values: [(any DatabaseValueConvertible)?] = []
            for name in names {
                guard let value = databaseValue(columns[name]!) else {
                    throw ServiceError(.invalidArgument, 
                        "\(file): column '\(name)' of row \(index) in '\(table)' is not a scalar")
                }
                values.append(value)
            }
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            let quoted = names.map { "\"\($0.replacingOccurrences(of: "\"", with: ""))\"" }.joined(separator: ", ")
            try db.execute(
                sql: "INSERT INTO \(table) (\(quoted)) VALUES (\(placeholders))",
                arguments: StatementArguments(values)
            )
        }
    }

    private static func json(_ value: DatabaseValue) -> JSONValue {
        switch value.storage {
        case .null: .null
        case .int64(let number): .number(Double(number))
        case .double(let number): .number(number)
        case .string(let text): .string(text)
        case .blob(let data): ["base64": .string(data.base64EncodedString())]
        }
    }

    private static func databaseValue(_ value: JSONValue) -> DatabaseValue? {
        switch value {
        case .null: return .null
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        case .number(let number):
            if let integer = Int64(exactly: number) { return integer.databaseValue }
            return number.databaseValue
        case .string(let text): return text.databaseValue
        case .object(let members):
            guard members.count == 1, let text = members["base64"]?.stringValue, let data = Data(base64Encoded: text)
            else { return nil }
            return data.databaseValue
        case .array: return nil
        }
    }
}
