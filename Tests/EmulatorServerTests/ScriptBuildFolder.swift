import Foundation

/// A temporary folder that looks like a Swift package's build folder (it has the
/// `workspace-state.json` SwiftPM writes), holding shell scripts the emulator may deploy:
/// stand-ins for misbehaving worker binaries.
struct ScriptBuildFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("build-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url.appendingPathComponent("debug"),
            withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: url.appendingPathComponent("workspace-state.json"))
    }

    /// An executable `debug/NAME` running `body` with /bin/sh.
    func script(_ name: String, _ body: String) throws -> URL {
        let file = url.appendingPathComponent("debug/\(name)")
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        return file
    }

    /// A file in the folder, for scripts to write to.
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}
