import CloudFunctions
import Foundation

/// What a deploy gives the functions' processes: the values of the package's `.env` files and
/// its params, resolved by one rule for the emulator and production.
///
/// Files are read in this order, a later one winning: `.env`, `.env.<projectId>`, then, for
/// the emulator only, `.env.local`. Each param takes its value from them, else its default;
/// one with neither fails the deploy, naming the file to put it in. A value must fit its
/// param's type and pattern. Every other key of the files is passed on as well, as the
/// Firebase CLI does.
struct FunctionsEnvironment {
    /// The variables, by key.
    var values: [String: String]
    /// The file each key was read from, as shown in messages.
    var sources: [String: String]

    /// Reads the package's `.env` files for `project`; `.env.local` when `emulator`.
    ///
    /// - Throws: ``CLIError`` for a bad line or key, naming the file and line.
    static func load(package: URL, shownAs folder: String, project: String?, emulator: Bool) throws -> FunctionsEnvironment {
        var names = [".env"]
        if let project { names.append(".env.\(project)") }
        if emulator { names.append(".env.local") }
        var environment = FunctionsEnvironment(values: [:], sources: [:])
        for name in names {
            let shown = folder + "/" + name
            guard let file = try EnvironmentFile.read(package.appendingPathComponent(name), shownAs: shown) else { continue }
            for entry in file.entries {
                environment.values[entry.key] = entry.value
                environment.sources[entry.key] = "\(shown):\(entry.line)"
            }
        }
        return environment
    }

    /// The variables the functions get: every `.env` value, with each param's value in the
    /// form the runtime reads (a list as a JSON array, a boolean as `true`/`false`).
    ///
    /// - Throws: ``CLIError``, one line: the params without a value or default and where to
    ///   set them, or a value that does not fit its param.
    func resolving(_ params: [ParamSpec], files: String) throws -> [String: String] {
        var resolved = values
        // A secret's value in a .env file would reach every function, and production in plain text.
        if let secret = params.first(where: { $0.type == .secret && values[$0.name] != nil }) {
            throw CLIError("\(sources[secret.name] ?? files): \(secret.name) is a secret: its value goes in .secret.local "
                + "for the emulator and in Secret Manager for production, not in a .env file")
        }
        var missing: [String] = []
        for param in params where param.type != .secret {
            guard let text = values[param.name] ?? param.defaultEnvironmentValue else {
                missing.append(param.name)
                continue
            }
            switch param.environmentValue(of: text) {
            case .success(let value): resolved[param.name] = value
            case .failure(let error):
                throw CLIError((sources[param.name].map { "\($0): " } ?? "the default of ") + error.message)
            }
        }
        if !missing.isEmpty {
            throw CLIError("\(missing.count == 1 ? "param" : "params") \(missing.joined(separator: ", ")) "
                + "\(missing.count == 1 ? "has" : "have") no value and no default: add "
                + missing.map { "\($0)=…" }.joined(separator: ", ") + " to \(files)")
        }
        return resolved
    }

    /// The values of the secrets the functions read, from the package's `.secret.local`, the
    /// emulator's stand-in for Secret Manager.
    ///
    /// - Throws: ``CLIError``, one line: the secrets it lacks, or a bad line of the file.
    static func localSecrets(_ names: [String], package: URL, shownAs folder: String) throws -> [String: String] {
        guard !names.isEmpty else { return [:] }
        let shown = folder + "/.secret.local"
        let values = try EnvironmentFile.read(package.appendingPathComponent(".secret.local"), shownAs: shown, secrets: true)?
            .values ?? [:]
        let missing = names.filter { values[$0] == nil }
        if !missing.isEmpty {
            throw CLIError("\(missing.count == 1 ? "secret" : "secrets") \(missing.joined(separator: ", ")) "
                + "\(missing.count == 1 ? "has" : "have") no value: add " + missing.map { "\($0)=…" }.joined(separator: ", ")
                + " to \(shown) (the emulator's Secret Manager; keep it out of git)")
        }
        return values.filter { names.contains($0.key) }
    }
}
