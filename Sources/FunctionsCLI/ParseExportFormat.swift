import ArgumentParser

/// `--from` of the import commands that read only Parse exports (`config:`, `database:` and
/// `messaging:import`); it names the source, so later formats can join it.
enum ParseExportFormat: String, ExpressibleByArgument, CaseIterable {
    case parse
}
