import ArgumentParser
import Foundation

/// `functions init DIR`: writes a new functions package that builds, tests and deploys as it is.
struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a functions package: one function of each trigger kind, with tests.",
        discussion: """
            Writes Package.swift, Sources/NAME/NAME.swift (a Remote Config, a database, an Auth and an \
            Analytics trigger, an HTTPS function, a callable and a blocking sign-up check), \
            Tests/NAMETests (CloudFunctionsTesting and the in-process emulator), .gitignore and README.md. \
            The package depends on swift-cloud-functions at --package-path (by default the checkout this \
            command was built from) or at --package-url. A directory that is not empty is left alone \
            unless --force is given, which replaces only the files listed here.
            """
    )

    @Argument(help: "The directory to create the package in.")
    var directory: String

    @Option(help: "The executable target and FunctionsApp type (default: the directory's name in UpperCamelCase).")
    var name: String?

    @Option(name: .customLong("package-path"), help: "A checkout of swift-cloud-functions to depend on.")
    var packagePath: String?

    @Option(name: .customLong("package-url"), help: "The git URL of swift-cloud-functions to depend on, instead of a path.")
    var packageURL: String?

    @Option(help: "With --package-url: the lowest version to accept.")
    var from = "0.1.0"

    @Flag(help: "Write into a directory that is not empty, replacing files of the same names.")
    var force = false

    func run() throws {
        let fileManager = FileManager.default
        let root = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        let package = root.lastPathComponent
        let target = name ?? Self.typeName(from: package)
        guard Self.isIdentifier(target) else {
            throw ValidationError("--name must be a Swift type name (a letter or _, then letters, digits or _), not '\(target)'")
        }
        let dependency = try self.dependency()
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: root.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ValidationError("\(directory) exists and is not a directory") }
            let contents = try fileManager.contentsOfDirectory(atPath: root.path)
            if !contents.isEmpty, !force {
                throw ValidationError("\(directory) is not empty; pass --force to write the package into it (files of the same names are replaced)")
            }
        }
        let scaffold = Scaffold(package: package, target: target, dependency: dependency)
        for file in scaffold.files {
            let url = root.appendingPathComponent(file.path)
            try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.contents.utf8).write(to: url, options: .atomic)
            print("wrote \(url.path)")
        }
        print("""

            Next:
              cd \(directory)
              swift test
              functions emulators:start &
              functions deploy --source .
            """)
    }

    /// The dependency the options name; by default the checkout this command was built from.
    private func dependency() throws -> Scaffold.Dependency {
        if let packageURL {
            guard packagePath == nil else { throw ValidationError("give --package-path or --package-url, not both") }
            return .url(packageURL, from: from)
        }
        let checkout = packagePath.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL }
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
        let manifest = checkout.appendingPathComponent("Package.swift")
        guard let text = try? String(contentsOf: manifest, encoding: .utf8), text.contains("name: \"swift-cloud-functions\"") else {
            throw ValidationError("""
                \(checkout.path) is not a checkout of swift-cloud-functions: give --package-path DIR (a checkout) \
                or --package-url URL
                """)
        }
        return .path(checkout.path)
    }

    /// `my-app_functions` → `MyAppFunctions`; a name that does not start with a letter gets `Functions` in front.
    static func typeName(from directory: String) -> String {
        let words = directory.split(whereSeparator: { !$0.isLetter && !$0.isNumber || !$0.isASCII })
        var name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if name.first.map({ !$0.isLetter }) ?? true { name = "Functions" + name }
        return name
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || ("A"..."Z").contains(first) || ("a"..."z").contains(first)
        else { return false }
        return text.unicodeScalars.allSatisfy {
            $0 == "_" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }
    }
}
