import ArgumentParser
import CloudFunctions
import Foundation

/// `functions debug NAME`: deploys the package as a debug build to a running emulator with one
/// function set up for a debugger, and prints how to attach to it.
struct DebugFunction: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Deploy the functions as a debug build, with one function ready for a debugger to attach.",
        discussion: """
            Builds the package in debug and deploys it to the running emulator as `deploy` does; the named \
            function runs as one instance whose handlers have no timeout (a breakpoint may hold one; the \
            emulator waits as long as the platform allows a function of its kind), while the other functions \
            run as usual. Prints the instance's process id with the lldb command and a VS Code launch entry \
            that attach to it. Deploying again (deploy, or debug of another function) ends it.
            """
    )

    @Argument(help: "The function to debug.")
    var name: String

    @Option(help: "The functions package.")
    var source = "functions"

    @Option(help: "The executable product to deploy (default: the package's only executable).")
    var product: String?

    @Option(name: .customLong("scratch-path"), help: "The build folder (default: the package's own .build).")
    var scratchPath: String?

    @OptionGroup var connection: EmulatorOptions

    func run() async throws {
        var arguments = ["--source", source, "--configuration", "debug"]
        if let product { arguments += ["--product", product] }
        if let scratchPath { arguments += ["--scratch-path", scratchPath] }
        if let emulator = connection.emulator { arguments += ["--emulator", emulator] }
        if let project = connection.project { arguments += ["--project", project] }
        let deploy = try Deploy.parse(arguments)
        let package = try deploy.packageFolder()
        let built = try await deploy.build(package, product: deploy.productName(package))
        let (parsed, environment) = try deploy.prepared(built.manifest, package: package)
        guard parsed.endpoints[name] != nil else {
            throw CLIError("no function named '\(name)' in \(source); it has: " + parsed.endpoints.keys.sorted().joined(separator: ", "))
        }
        let api = try connection.client()
        for line in try await deploy.deployToEmulator(binary: built.binary, manifest: built.manifest, parsed: parsed,
            environment: environment, package: package, api: api, debug: name)
        {
            print(line)
        }
        let functions = try await api.send("GET", api.emulatorPath("/functions")).json()
        guard let pid = functions["functions"]?[name]?["instances"]?.arrayValue?.first?["pid"]?.numberValue.map(Int.init)
        else {
            throw CLIError("'\(name)' was deployed, but its instance has no process to attach to")
        }
        print("""

            \(name) runs for a debugger: one instance, process \(pid), no timeout; the other functions run as usual.
            Attach with lldb:
              lldb --attach-pid \(pid)
            or from VS Code, with this entry in .vscode/launch.json (the Swift extension; with CodeLLDB, "type": "lldb"):
              {"type": "swift", "request": "attach", "name": "Attach to \(name)", "pid": \(pid)}
            Set a breakpoint in its handler, then send it an event or a request. Deploy again to end it.
            """)
    }
}
