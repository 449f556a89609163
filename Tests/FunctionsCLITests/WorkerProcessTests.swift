import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A functions binary run as a process, as the emulator and the containers run it.
@Suite("A functions binary's process", .timeLimit(.minutes(2)))
struct WorkerProcessTests {
    @Test("@MainActor code runs (the main queue is served), and SIGTERM exits 0")
    func mainActorRunsOnTheMainThread() async throws {
        let process = Process()
        process.executableURL = CLIProcess.product("rehearsal-worker")
        process.environment = ["PORT": "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("ready: ") }, "\(text)")
        let base = try #require(URL(string: String(line.dropFirst("ready: ".count))))
        for _ in 0..<3 {
            let (body, response) = try await URLSession.shared.data(from: base.appendingPathComponent("mainActor"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self) == "ran on the main actor")
        }
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }
}
