import ArgumentParser
import CloudFunctions
import Foundation
import FirebaseHTTP

/// `functions database:set PATH JSON`: writes a Realtime Database location (triggers fire).
struct DatabaseSet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database:set",
        abstract: "Replace the value at a Realtime Database path; database triggers fire.",
        discussion: "Example: functions database:set /scores/s1 '{\"player\": \"ada\", \"score\": 42}'"
    )

    @OptionGroup var target: EmulatorOptions

    @Argument(help: "The path, e.g. /scores/s1.")
    var path: String

    @Argument(help: "The value as JSON (omit it and give --data-file to read a file).")
    var value: String?

    @Option(name: .customLong("data-file"), help: "Read the value from this JSON file ('-' = stdin).")
    var dataFile: String?

    @OptionGroup var database: DatabaseInstance

    @Flag(help: "Merge the value's children into the path (PATCH) instead of replacing it.")
    var merge = false

    func validate() throws {
        guard (value == nil) != (dataFile == nil) else {
            throw ValidationError("give the value as JSON or --data-file")
        }
    }

    func run() async throws {
        let api = try target.client()
        let json: JSONValue
        if let dataFile {
            json = try readJSONFile(dataFile)
        } else {
            do {
                json = try JSONValue(parsing: Data((value ?? "").utf8))
            } catch {
                throw CLIError("the value is not JSON (quote strings: '\"text\"'): \(error)")
            }
        }
        let query = [database.namespace(project: api.project)]
        let written = try await api.send(merge ? "PATCH" : "PUT", try Self.restPath(path), query: query, json: json)
        print(try written.json().serialized())
    }

    /// `/a/b` → `/a/b.json`; the root is `/.json`.
    static func restPath(_ path: String) throws -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.contains(where: { $0.contains(where: { ".$#[]".contains($0) }) }) else {
            throw CLIError("'\(path)' is not a database path: keys cannot contain . $ # [ ]")
        }
        // Each key as itself: a % or ? in a key is the key's, not URL syntax.
        return "/" + segments.map { AdminHTTP.percentEncoded($0, keeping: AdminHTTP.segmentCharacters) }
            .joined(separator: "/") + ".json"
    }
}
