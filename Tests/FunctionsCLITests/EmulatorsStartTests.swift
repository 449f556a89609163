import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the built `functions` binary as a user would.
@Suite("functions emulators:start")
struct EmulatorsStartTests {
    static var binary: URL {
        // The test bundle sits next to the products in the build folder.
        let products = Bundle.main.bundleURL.deletingLastPathComponent()
        let direct = products.appendingPathComponent("functions")
        if FileManager.default.isExecutableFile(atPath: direct.path) { return direct }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("functions")
    }

    @Test("prints the ready line with a free port, serves requests, and stops on SIGTERM")
    func startsAndStops() async throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["emulators:start", "--port", "0", "--in-memory"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // Read until the ready line; an empty read means the process ended without one.
        var text = ""
        while !text.contains("\n") || !text.contains("ready: ") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ready: ") })
        let base = try #require(URL(string: String(line.dropFirst("ready: ".count))))
        #expect(base.host == "127.0.0.1")
        #expect((base.port ?? 0) > 0)

        let (data, response) = try await URLSession.shared.data(
            from: base.appendingPathComponent("emulator/v1/projects/demo-project/events")
        )
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"events":[]}"#)

        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test("rejects bad arguments with one clear line and a non-zero exit")
    func badArguments() throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["emulators:start", "--port", "70000"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus != 0)
        #expect(message.contains("--port must be between 0 and 65535"))
    }
}
