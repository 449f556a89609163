import ArgumentParser
import CloudFunctions

/// What the import commands that read Parse exports (`config:`, `database:` and
/// `messaging:import`) read: a file, or standard input, and its format, which names the source
/// so that later formats can join it.
struct ParseExport: ParsableArguments {
    /// The formats read.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case parse
    }

    @Argument(help: "The export file ('-' reads stdin).")
    var file: String

    @Option(help: "The export's format.")
    var from: Format = .parse

    /// The export's JSON.
    func json() throws -> JSONValue { try readJSONFile(file) }
}
