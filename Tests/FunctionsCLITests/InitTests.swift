import Foundation
import Testing

/// `functions init`: the files it writes, and what it refuses. (That the package builds, passes
/// its tests and deploys is proved by the conformance suite's `test_init.py`, which runs
/// `swift test` and `functions deploy` on it.)
@Suite("functions init")
struct InitTests {
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("init-\(UUID())")
    }

    /// The root of this checkout.
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("writes the package, its functions, tests, .gitignore and README, depending on the checkout")
    func writes() throws {
        let parent = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = parent.appendingPathComponent("my-app_functions")
        let result = try CLIProcess.run(["init", directory.path, "--package-path", Self.checkout.path])
        #expect(result.status == 0, "\(result.errors)")
        let manifest = try String(contentsOf: directory.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#"name: "my-app_functions""#))
        #expect(manifest.contains(#".package(name: "swift-cloud-functions", path: "\#(Self.checkout.standardizedFileURL.path)")"#))
        #expect(manifest.contains(#".executable(name: "MyAppFunctions", targets: ["MyAppFunctions"])"#))
        let source = try String(contentsOf: directory.appendingPathComponent("Sources/MyAppFunctions/MyAppFunctions.swift"),
            encoding: .utf8)
        for trigger in ["PushConfig(", "Database.ref(", "Auth.user().onCreate", "Analytics.event(", "Https.onRequest",
            "Https.onCall", "Identity.beforeUserCreated", "@main\nstruct MyAppFunctions: FunctionsApp"]
        {
            #expect(source.contains(trigger), "no \(trigger)")
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("Tests/MyAppFunctionsTests/MyAppFunctionsTests.swift").path))
        #expect(try String(contentsOf: directory.appendingPathComponent(".gitignore"), encoding: .utf8).contains(".build/"))
        #expect(try String(contentsOf: directory.appendingPathComponent("README.md"), encoding: .utf8).contains("swift test"))
        #expect(result.output.contains("swift test"))
    }

    @Test("leaves a directory that is not empty alone unless --force, which replaces only its own files")
    func existingDirectory() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let mine = directory.appendingPathComponent("Package.swift")
        let other = directory.appendingPathComponent("notes.txt")
        try Data("// mine".utf8).write(to: mine)
        try Data("keep".utf8).write(to: other)

        let refused = try CLIProcess.run(["init", directory.path, "--package-path", Self.checkout.path])
        #expect(refused.status != 0)
        #expect(refused.errors.contains("is not empty; pass --force"), "\(refused.errors)")
        #expect(try String(contentsOf: mine, encoding: .utf8) == "// mine")

        let forced = try CLIProcess.run(["init", directory.path, "--package-path", Self.checkout.path, "--force",
            "--name", "Backend"])
        #expect(forced.status == 0, "\(forced.errors)")
        #expect(try String(contentsOf: mine, encoding: .utf8).contains(#"targets: ["Backend"]"#))
        #expect(try String(contentsOf: other, encoding: .utf8) == "keep")
    }

    @Test("refuses a bad name, a path that is not a checkout, and both dependency options")
    func badOptions() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let badName = try CLIProcess.run(["init", directory.path, "--name", "my-functions", "--package-path", Self.checkout.path])
        #expect(badName.status != 0)
        #expect(badName.errors.contains("--name must be a Swift type name"), "\(badName.errors)")
        let notCheckout = try CLIProcess.run(["init", directory.path, "--package-path", NSTemporaryDirectory()])
        #expect(notCheckout.status != 0)
        #expect(notCheckout.errors.contains("is not a checkout of swift-cloud-functions"), "\(notCheckout.errors)")
        let both = try CLIProcess.run(["init", directory.path, "--package-path", Self.checkout.path,
            "--package-url", "https://example.com/swift-cloud-functions.git"])
        #expect(both.status != 0)
        #expect(!FileManager.default.fileExists(atPath: directory.path), "nothing is written when the options are wrong")
        let released = try CLIProcess.run(["init", directory.path, "--package-url",
            "https://example.com/swift-cloud-functions.git", "--from", "1.2.0"])
        #expect(released.status == 0, "\(released.errors)")
        let manifest = try String(contentsOf: directory.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".package(url: "https://example.com/swift-cloud-functions.git", from: "1.2.0")"#))
    }
}
