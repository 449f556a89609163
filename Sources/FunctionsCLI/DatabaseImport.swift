import ArgumentParser
import CloudFunctions
import FirebaseEmulator
import Foundation

/// `functions database:import FILE --from parse --path /scores`: a Parse class as database JSON.
struct DatabaseImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database:import",
        abstract: "Import a Parse class export under a Realtime Database path, one child per objectId.",
        discussion: """
            Dates become ISO strings, Pointers the pointed objectId, Files their URL, GeoPoints {latitude, \
            longitude}; ACLs and Relations are dropped. Objects are written 1,000 per multi-path update, so \
            database triggers fire for each one (--disable-triggers writes without events).
            """
    )

    @OptionGroup var target: EmulatorOptions

    @OptionGroup var export: ParseExport

    @Option(help: "Where the objects go, e.g. /scores.")
    var path: String

    @OptionGroup var database: DatabaseInstance

    @Flag(name: .customLong("disable-triggers"), help: "Write without firing database triggers.")
    var disableTriggers = false

    func run() async throws {
        let api = try target.client()
        let children: [String: JSONValue]
        do {
            children = try ParseClassExport.children(from: export.json())
        } catch let error as ServiceError {
            throw CLIError("\(export.file) is not a Parse class export: \(error.message)")
        }
        guard !children.isEmpty else { throw CLIError("\(export.file) has no objects") }
        var query = [database.namespace(project: api.project),
            URLQueryItem(name: "print", value: "silent")]
        if disableTriggers { query.append(URLQueryItem(name: "disableTriggers", value: "true")) }
        let restPath = try DatabaseSet.restPath(path)
        let ids = children.keys.sorted()
        for start in stride(from: 0, to: ids.count, by: 1000) {
            let batch = ids[start..<min(start + 1000, ids.count)]
            let update = JSONValue.object(Dictionary(uniqueKeysWithValues: batch.map { ($0, children[$0]!) }))
            try await api.send("PATCH", restPath, query: query, json: update, timeout: 300)
            status("imported \(start + batch.count) of \(ids.count) objects")
        }
        print("imported \(ids.count) object\(ids.count == 1 ? "" : "s") under \(path)")
    }
}
