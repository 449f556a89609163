import ArgumentParser
import CloudFunctions
import Foundation

/// `functions config:publish FILE`: publishes a template, guarded by the current ETag.
struct ConfigPublish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config:publish",
        abstract: "Publish a Remote Config template from a JSON file ('-' reads stdin).",
        discussion: """
            Without --etag or --force, reads the current template's ETag first and publishes against it, \
            so a publish made meanwhile by someone else is not overwritten (HTTP 412).
            """
    )

    @OptionGroup var target: EmulatorOptions

    @Argument(help: "The template file: conditions, parameters, parameterGroups, and the version's description (the rest of a version is ignored).")
    var file: String

    @Option(help: "Publish only if the current template has this ETag.")
    var etag: String?

    @Flag(help: "Publish whatever the current template is (If-Match: *).")
    var force = false

    @Flag(name: .customLong("validate-only"), help: "Check the template without publishing it.")
    var validateOnly = false

    func validate() throws {
        if force && etag != nil { throw ValidationError("give --etag or --force, not both") }
    }

    func run() async throws {
        let api = try target.client()
        var template = try readJSONFile(file)
        guard case .object(var members) = template else { throw CLIError("\(file) must hold a JSON object") }
        // A template read with config:get carries its version; only the description is the
        // publisher's to give (the REST API sets the rest).
        let description = members["version"]?["description"]?.stringValue
        members["version"] = description.map { ["description": .string($0)] }
        template = .object(members)
        let ifMatch: String
        if force {
            ifMatch = "*"
        } else if let etag {
            ifMatch = etag
        } else {
            ifMatch = try await api.send("GET", api.projectPath("/remoteConfig")).headers["etag"] ?? "*"
        }
        let query = validateOnly ? [URLQueryItem(name: "validate_only", value: "true")] : []
        let answer = try await api.send("PUT", api.projectPath("/remoteConfig"), query: query, json: template,
            headers: ["If-Match": ifMatch])
        let published = try answer.json()
        if validateOnly {
            print("valid: \(published["parameters"]?.objectValue?.count ?? 0) parameters")
        } else {
            print("published version \(published["version"]?["versionNumber"]?.stringValue ?? "?")"
                + " (etag \(answer.headers["etag"] ?? "?"))")
        }
    }
}
