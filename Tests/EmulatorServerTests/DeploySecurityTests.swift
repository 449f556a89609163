import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The deployments route starts programs, so it is the one a hostile web page or a hostile
/// binary would aim at: it must refuse anything but the owner deploying a build product, and a
/// worker that misbehaves while starting must not hang or outlive the emulator.
@Suite("Deployments refuse what could run an arbitrary program, and never hang", .timeLimit(.minutes(2)))
struct DeploySecurityTests {
    static let admin = ["Authorization": "Bearer owner", "Content-Type": "application/json"]

    static func deployments(_ base: URL) -> URL {
        base.appendingPathComponent("emulator/v1/projects/demo/deployments")
    }

    @Test("deploying needs the owner credential, a JSON body, no foreign origin and a binary from a build folder")
    func refusals() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let body: JSONValue = [
            "binary": .string(DeployRoutesTests.workerBinary.path), "manifest": try DeployRoutesTests.manifest(),
        ]
        try await server.withRunning { base in
            let url = Self.deployments(base)
            var (status, answer) = try await DeployRoutesTests.post(url, body,
                headers: ["Content-Type": "application/json"])
            #expect(status == 401)
            #expect(answer?["error"]?["status"] == "UNAUTHENTICATED")

            (status, answer) = try await DeployRoutesTests.post(url, body,
                headers: Self.admin.merging(["Origin": "https://evil.example"]) { $1 })
            #expect(status == 403)
            #expect(answer?["error"]?["status"] == "PERMISSION_DENIED")

            (status, _) = try await DeployRoutesTests.post(url, body,
                headers: Self.admin.merging(["Sec-Fetch-Site": "cross-site"]) { $1 })
            #expect(status == 403)

            (status, _) = try await DeployRoutesTests.post(url, body,
                headers: ["Authorization": "Bearer owner", "Content-Type": "text/plain"])
            #expect(status == 415)

            (status, answer) = try await DeployRoutesTests.post(url, ["binary": "/bin/sh", "manifest": body["manifest"]!],
                headers: Self.admin)
            #expect(status == 400)
            #expect(answer?["error"]?["message"]?.stringValue?.contains("build folder") == true)
            #expect(server.deployments.deployment == nil)

            // The emulator's own origin (a console it serves) may deploy.
            (status, _) = try await DeployRoutesTests.post(url, body,
                headers: Self.admin.merging(["Origin": "http://127.0.0.1:\(base.port!)"]) { $1 })
            #expect(status == 200)
            #expect(server.deployments.deployment?.functions["pushConfig"]?.supervisors.first?.status.status == .running)
        }
    }

    @Test("a worker that writes forever without a ready line is killed at the start deadline")
    func neverReady() async throws {
        var configuration = EmulatorServer.Configuration()
        configuration.workerStartTimeout = .seconds(1)
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil),
            configuration: configuration)
        let folder = try ScriptBuildFolder()
        let pidFile = folder.file("pid")
        let chatty = try folder.script("chatty", "echo $$ > \(pidFile.path); exec yes spam")
        try await server.withRunning { base in
            let (status, answer) = try await DeployRoutesTests.post(Self.deployments(base),
                ["binary": .string(chatty.path), "manifest": try DeployRoutesTests.manifest()], headers: Self.admin)
            #expect(status == 400)
            let message = answer?["error"]?["message"]?.stringValue ?? ""
            #expect(message.contains("printed no 'ready: URL' line"), "\(message)")
            #expect(message.contains("spam"))
            #expect(message.utf8.count < 4000, "the output in the error is bounded")
            #expect(server.deployments.deployment == nil)
        }
        // The answer came after the child was gone.
        let pid = try #require(Int32(String(decoding: Data(contentsOf: pidFile), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }

    #if os(Linux)
    @Test("workers start with no blocked or ignored signals, so any program stops on SIGTERM")
    func cleanSignals() async throws {
        let server = EmulatorServer(emulator: try Emulator(project: "demo", directory: nil))
        let folder = try ScriptBuildFolder()
        let report = folder.file("signals")
        // grep replaces the shell, so it reports the mask and dispositions the spawn gave.
        let script = try folder.script("signals", "exec grep -E '^Sig(Blk|Ign)' /proc/self/status > \(report.path)")
        try await server.withRunning { base in
            let (status, _) = try await DeployRoutesTests.post(Self.deployments(base),
                ["binary": .string(script.path), "manifest": try DeployRoutesTests.manifest()], headers: Self.admin)
            #expect(status == 400)
        }
        // Signals 1-31 (glibc keeps its two internal real-time signals ignored in every child).
        let masks = String(decoding: try Data(contentsOf: report), as: UTF8.self).split(separator: "\n").map {
            UInt64($0.split(separator: "\t").last ?? "", radix: 16).map { $0 & 0x7fff_ffff }
        }
        #expect(masks == [0, 0], "blocked and ignored standard signals")
    }
    #endif

    @Test("a worker started by the emulator exits when its standard input closes (the emulator died)")
    func exitsWithParent() async throws {
        let process = Process()
        process.executableURL = DeployRoutesTests.workerBinary
        process.environment = ProcessInfo.processInfo.environment.merging([
            "PORT": "0", "FUNCTIONS_STOP_ON_STDIN_EOF": "true", "GCLOUD_PROJECT": "demo",
        ]) { $1 }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        try process.run()
        let ready = await Self.firstLine(of: output.fileHandleForReading)
        #expect(ready.hasPrefix("ready: http://127.0.0.1:"))
        try input.fileHandleForWriting.close()
        var statuses = exited.stream.makeAsyncIterator()
        #expect(await statuses.next() == 0)
    }

    @Test("a worker whose output pipe is gone still stops cleanly on SIGTERM, without a crash, as it logs")
    func exitsWithoutItsOutput() async throws {
        let process = Process()
        process.executableURL = DeployRoutesTests.workerBinary
        process.environment = ProcessInfo.processInfo.environment.merging([
            "PORT": "0", "FUNCTIONS_STOP_ON_STDIN_EOF": "true", "GCLOUD_PROJECT": "demo", "LOG_FORMAT": "json",
            "SWIFT_BACKTRACE": "enable=no",
        ]) { $1 }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exited = AsyncStream<(Process.TerminationReason, Int32)>.makeStream()
        process.terminationHandler = { exited.continuation.yield(($0.terminationReason, $0.terminationStatus)) }
        try process.run()
        #expect(await Self.firstLine(of: output.fileHandleForReading, startingWith: "ready: ") != nil)
        // Its output is no longer read (the emulator stopped reading, or died); told to stop, the
        // worker logs that it does, into the broken pipe.
        try output.fileHandleForReading.close()
        kill(process.processIdentifier, SIGTERM)
        var outcomes = exited.stream.makeAsyncIterator()
        let outcome = await outcomes.next()
        #expect(outcome?.0 == .exit && outcome?.1 == 0, "\(String(describing: outcome))")
    }

    /// The first line a pipe delivers that starts with `prefix`, read off the cooperative pool;
    /// `nil` when the pipe ends first.
    static func firstLine(of handle: FileHandle, startingWith prefix: String) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var text = ""
                while true {
                    if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) {
                        return continuation.resume(returning: String(line))
                    }
                    let chunk = handle.availableData
                    if chunk.isEmpty { return continuation.resume(returning: nil) }
                    text += String(decoding: chunk, as: UTF8.self)
                }
            }
        }
    }

    /// The first line a pipe delivers, read off the cooperative pool.
    static func firstLine(of handle: FileHandle) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var text = Data()
                while !text.contains(UInt8(ascii: "\n")) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    text.append(chunk)
                }
                continuation.resume(returning: String(decoding: text, as: UTF8.self)
                    .split(separator: "\n").first.map(String.init) ?? "")
            }
        }
    }
}
