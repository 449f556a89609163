import ArgumentParser
import EmulatorServer
import FirebaseEmulator
import Foundation
import Hummingbird
import Logging

/// `functions emulators:start`: serves every emulated service on one port.
struct EmulatorsStart: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emulators:start",
        abstract: "Start the emulator: Remote Config, Realtime Database, Auth, Messaging and Analytics on one port.",
        discussion: """
            Prints 'ready: http://HOST:PORT' once it accepts requests. State is kept in SQLite in the \
            data directory (default .functions/) unless --in-memory is given. Stop it with Ctrl-C or SIGTERM.
            """
    )

    @Option(help: "The project id.")
    var project = "demo-project"

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 4400

    @Option(name: .customLong("data-dir"), help: "Where to keep state.")
    var dataDirectory = ".functions"

    @Flag(name: .customLong("in-memory"), help: "Keep no state on disk.")
    var inMemory = false

    @Option(name: .customLong("max-body"), help: "The largest request body accepted, in bytes.")
    var maxBodySize = 32 * 1024 * 1024

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard maxBodySize > 0 else { throw ValidationError("--max-body must be positive") }
        guard !project.isEmpty, project.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw ValidationError("--project must be letters, digits and '-'")
        }
    }

    func run() async throws {
        var logger = Logger(label: "functions.emulator")
        logger.logLevel = .warning
        let directory = inMemory ? nil : URL(fileURLWithPath: dataDirectory, isDirectory: true)
        let emulator: Emulator
        do {
            emulator = try Emulator(project: project, directory: directory, logger: logger)
        } catch {
            throw CLIError("cannot open the emulator's data in \(dataDirectory): \(error)")
        }
        let server = EmulatorServer(
            emulator: emulator,
            configuration: .init(host: host, port: port, maxBodySize: maxBodySize),
            logger: logger
        )
        let host = host
        let app = server.application { port in
            FileHandle.standardOutput.write(Data("ready: http://\(host):\(port)\n".utf8))
        }
        defer { server.deployments.stop() }
        try await app.runService()
    }
}

/// A failure the CLI reports as one line on stderr with a non-zero exit.
struct CLIError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
