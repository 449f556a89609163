import ArgumentParser
import CloudFunctions
import Foundation
import FunctionsWorker

/// `functions deploy`: builds the functions package, reads its manifest and deploys it to a
/// running emulator, which starts and supervises the worker and routes events to it.
struct Deploy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy",
        abstract: "Build the functions package and deploy it to a running emulator.",
        discussion: """
            Builds the package in release mode, asks its executable for the manifest \
            (FUNCTIONS_MANIFEST_OUTPUT_PATH), and registers it with the emulator, which starts the \
            worker, restarts it if it crashes, and delivers events to it. Redeploying replaces the \
            previous deployment without losing events.
            """
    )

    @Option(help: "The functions package.")
    var source = "functions"

    @Option(help: "The executable product to deploy (default: the package's only executable).")
    var product: String?

    @Option(help: "The build configuration: release or debug.")
    var configuration = "release"

    @Option(name: .customLong("scratch-path"), help: """
        The build folder (default: the package's own .build). Give the root package's .build to reuse \
        what it already compiled.
        """)
    var scratchPath: String?

    @Option(help: "Deploy only these functions (comma-separated).")
    var only: String?

    @OptionGroup var target: EmulatorOptions

    func validate() throws {
        guard ["release", "debug"].contains(configuration) else {
            throw ValidationError("--configuration must be release or debug, not '\(configuration)'")
        }
    }

    func run() async throws {
        let api = try target.client()
        let package = URL(fileURLWithPath: source).standardizedFileURL
        guard FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path) else {
            throw CLIError("no Swift package at \(package.path) (expected \(source)/Package.swift)")
        }
        let scratch = scratchPath.map { ["--scratch-path", URL(fileURLWithPath: $0).standardizedFileURL.path] } ?? []
        let productName = try product ?? Self.executableProduct(in: package, scratch: scratch)
        let build = ["build", "-c", configuration, "--package-path", package.path] + scratch
        status("building \(source) (\(productName), \(configuration))…")
        try Self.run("swift", build + ["--product", productName], echo: true)
        let binDirectory = try Self.run("swift", build + ["--show-bin-path"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let binary = URL(fileURLWithPath: binDirectory).appendingPathComponent(productName)

        status("reading the manifest…")
        let manifestFile = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: manifestFile) }
        try Self.run(binary.path, [], environment: ["FUNCTIONS_MANIFEST_OUTPUT_PATH": manifestFile.path])
        let manifest = try JSONValue(parsing: Data(contentsOf: manifestFile))
        let names = manifest["endpoints"]?.objectValue?.keys.sorted() ?? []
        status("found \(names.count) functions: \(names.joined(separator: ", "))")

        status("deploying to \(api.base.absoluteString)…")
        var body: [String: JSONValue] = ["binary": .string(binary.path), "manifest": manifest]
        if let only { body["only"] = .array(only.split(separator: ",").map { .string(String($0)) }) }
        let answer = try await api.send("POST", api.emulatorPath("/deployments"), json: .object(body), timeout: 120)
            .json()
        let worker = answer["worker"]?["url"]?.stringValue ?? "?"
        let deployed = answer["endpoints"]?.objectValue?.keys.sorted() ?? []
        print("deployed \(deployed.joined(separator: ", ")) (worker \(worker))")
        if let skipped = answer["skipped"]?.arrayValue, !skipped.isEmpty {
            print("not served by the emulator yet (no event trigger): "
                + skipped.compactMap(\.stringValue).joined(separator: ", "))
        }
    }

    static func executableProduct(in package: URL, scratch: [String]) throws -> String {
        let description = try run("swift", ["package", "--package-path", package.path] + scratch
            + ["describe", "--type", "json"])
        let json = try JSONValue(parsing: Data(description.utf8))
        let executables = (json["products"]?.arrayValue ?? []).filter { $0["type"]?["executable"] != nil }
            .compactMap { $0["name"]?.stringValue }
        guard executables.count == 1 else {
            throw CLIError(executables.isEmpty
                ? "\(package.path) has no executable product to deploy"
                : "\(package.path) has several executables (\(executables.joined(separator: ", "))): "
                    + "pick one with --product")
        }
        return executables[0]
    }

    @discardableResult
    static func run(_ command: String, _ arguments: [String], environment: [String: String] = [:], echo: Bool = false)
        throws -> String
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        process.standardOutput = echo ? FileHandle.standardError : output
        let errors = Pipe()
        process.standardError = echo ? FileHandle.standardError : errors
        try process.run()
        let data = echo ? Data() : output.fileHandleForReading.readDataToEndOfFile()
        let errorText = echo ? "" : String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError("\(command) \(arguments.joined(separator: " ")) failed (exit \(process.terminationStatus))"
                + (errorText.isEmpty ? "" : ": " + errorText.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return String(decoding: data, as: UTF8.self)
    }
}
