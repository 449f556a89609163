import ArgumentParser
import CloudFunctions
import Foundation

/// `functions database:get PATH`: reads a Realtime Database location.
struct DatabaseGet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database:get",
        abstract: "Print the value at a Realtime Database path."
    )

    @OptionGroup var target: EmulatorOptions

    @Argument(help: "The path, e.g. /leaderboard.")
    var path: String

    @OptionGroup var database: DatabaseInstance

    @Flag(help: "Only the keys of the children (true for each).")
    var shallow = false

    @Option(name: .customLong("order-by"), help: "Order by $key, $value, $priority or a child path.")
    var orderBy: String?

    @Option(name: .customLong("limit-to-first"), help: "The first N children in order.")
    var limitToFirst: Int?

    @Option(name: .customLong("limit-to-last"), help: "The last N children in order.")
    var limitToLast: Int?

    func run() async throws {
        let api = try target.client()
        var query = [database.namespace(project: api.project)]
        if shallow { query.append(URLQueryItem(name: "shallow", value: "true")) }
        if let orderBy { query.append(URLQueryItem(name: "orderBy", value: JSONValue.string(orderBy).serialized())) }
        if let limitToFirst { query.append(URLQueryItem(name: "limitToFirst", value: String(limitToFirst))) }
        if let limitToLast { query.append(URLQueryItem(name: "limitToLast", value: String(limitToLast))) }
        printJSON(try await api.send("GET", try DatabaseSet.restPath(path), query: query).json())
    }
}
