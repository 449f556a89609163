import ArgumentParser

/// The `functions` command line: run the emulator, deploy functions to it, and inspect and drive
/// its services.
@main
struct FunctionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "functions",
        abstract: "Run Swift cloud functions against a local emulator of the Firebase services.",
        subcommands: [
            Init.self, EmulatorsStart.self, EmulatorsEnv.self, EmulatorsExport.self, Deploy.self, DebugFunction.self, FunctionsList.self, FunctionsLog.self, Trigger.self, ScheduleRun.self,
            EventsLog.self,
            ConfigGet.self, ConfigPublish.self, ConfigVersions.self, ConfigRollback.self, ConfigImport.self,
            DatabaseGet.self, DatabaseSet.self, DatabaseImport.self, AuthImport.self, MessagingSend.self,
            MessagingInbox.self, MessagingImport.self,
            DemoStaleLoop.self,
        ]
    )
}
