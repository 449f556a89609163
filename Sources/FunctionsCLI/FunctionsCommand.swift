import ArgumentParser

/// The `functions` command line: run the emulator, and (as they arrive) deploy and manage.
@main
struct FunctionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "functions",
        abstract: "Run Swift cloud functions against a local emulator of the Firebase services.",
        subcommands: [EmulatorsStart.self, Deploy.self]
    )
}
