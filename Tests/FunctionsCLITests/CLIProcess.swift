import CloudFunctions
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The built `functions` binary, run as a user runs it.
enum CLIProcess {
    /// What a finished run printed and how it exited.
    struct Result {
        var status: Int32
        var output: String
        var errors: String
    }

    /// A binary built into the same folder as this test bundle.
    static func product(_ name: String) -> URL {
        let products = Bundle.main.bundleURL.deletingLastPathComponent()
        let direct = products.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: direct.path) { return direct }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Runs `functions ARGUMENTS` to the end, feeding `input` to its stdin.
    static func run(_ arguments: [String], input: String? = nil) throws -> Result {
        // Outputs go to files, so a chatty process never blocks on a full pipe.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputFile = folder.appendingPathComponent("out")
        let errorFile = folder.appendingPathComponent("err")
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        let process = Process()
        process.executableURL = product("functions")
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: String(decoding: try Data(contentsOf: outputFile), as: UTF8.self),
            errors: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self)
        )
    }
}

/// `functions emulators:start --in-memory --port 0`, running until the test stops it.
final class RunningEmulator {
    let process = Process()
    let base: URL
    let project: String
    /// The lines the emulator logs (to its standard error), as they come.
    let logLines: AsyncStream<String>

    /// Starts an emulator (in memory unless told otherwise, in `directory` if given) and waits
    /// for its ready line.
    init(project: String = "demo-project", arguments: [String] = ["--port", "0"], inMemory: Bool = true,
        directory: URL? = nil) throws
    {
        let (logLines, logged) = AsyncStream.makeStream(of: String.self)
        self.logLines = logLines
        self.project = project
        process.executableURL = CLIProcess.product("functions")
        process.arguments = ["emulators:start", "--project", project] + (inMemory ? ["--in-memory"] : []) + arguments
        if let directory {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            process.currentDirectoryURL = directory
        }
        let output = Pipe()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        let partial = Mutex("")
        errors.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            guard !chunk.isEmpty else {
                handle.readabilityHandler = nil
                logged.finish()
                return
            }
            let lines = partial.withLock { partial -> [Substring] in
                partial += String(decoding: chunk, as: UTF8.self)
                var lines = partial.split(separator: "\n", omittingEmptySubsequences: false)
                partial = String(lines.removeLast())
                return lines
            }
            for line in lines { logged.yield(String(line)) }
        }
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ready: ") }),
            let base = URL(string: String(line.dropFirst("ready: ".count)))
        else {
            process.terminate()
            throw CLIProcessError(message: "the emulator printed no ready line: \(text)")
        }
        self.base = base
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Runs `functions ARGUMENTS --emulator BASE --project PROJECT`.
    func cli(_ arguments: String..., input: String? = nil) throws -> CLIProcess.Result {
        try CLIProcess.run(arguments + ["--emulator", base.absoluteString, "--project", project], input: input)
    }

    /// An HTTP request to the emulator as an admin; the JSON answer.
    @discardableResult
    func request(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = body.serializedData()
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, _) = try await URLSession.shared.data(for: request)
        return data.isEmpty ? .null : try JSONValue(parsing: data)
    }
}

struct CLIProcessError: Error {
    var message: String
}
