import ArgumentParser
import CloudFunctions
import FirebaseEmulator
import Foundation

/// `functions config:import FILE --from parse`: a Parse Config as Remote Config parameters.
struct ConfigImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config:import",
        abstract: "Import a Parse Config (GET /parse/config) as Remote Config parameters.",
        discussion: """
            Each param becomes a parameter with its value as the default (strings, Booleans, numbers, JSON for \
            arrays and objects; Parse Dates as ISO strings, Files as URLs). The parameters are merged into the \
            current template (same keys replaced) and published against its ETag; --replace drops the others.
            """
    )

    @OptionGroup var target: EmulatorOptions

    @OptionGroup var export: ParseExport

    @Flag(help: "Replace every parameter of the current template instead of merging.")
    var replace = false

    @Flag(name: .customLong("include-master-key-only"), help: "Also import params Parse kept master-key only.")
    var includeMasterKeyOnly = false

    @Flag(name: .customLong("validate-only"), help: "Check the resulting template without publishing it.")
    var validateOnly = false

    func run() async throws {
        let api = try target.client()
        let imported: [String: JSONValue]
        do {
            imported = try ParseConfigExport.parameters(from: export.json(),
                includeMasterKeyOnly: includeMasterKeyOnly).objectValue ?? [:]
        } catch let error as ServiceError {
            throw CLIError("\(export.file) is not a Parse Config export: \(error.message)")
        }
        let current = try await api.send("GET", api.projectPath("/remoteConfig"))
        guard case .object(var template) = try current.json() else { throw CLIError("the template is not an object") }
        template["version"] = nil
        var parameters = replace ? [:] : template["parameters"]?.objectValue ?? [:]
        parameters.merge(imported) { _, new in new }
        template["parameters"] = .object(parameters)
        let query = validateOnly ? [URLQueryItem(name: "validate_only", value: "true")] : []
        let answer = try await api.send("PUT", api.projectPath("/remoteConfig"), query: query, json: .object(template),
            headers: ["If-Match": current.headers["etag"] ?? "*"]).json()
        let keys = imported.keys.sorted().joined(separator: ", ")
        if validateOnly {
            print("valid: \(imported.count) parameters from \(export.file) (\(keys))")
        } else {
            print("imported \(imported.count) parameters (\(keys)) as version "
                + (answer["version"]?["versionNumber"]?.stringValue ?? "?"))
        }
    }
}
