import ArgumentParser
import CloudFunctions
import FirebaseEmulator
import Foundation

/// `functions auth:import FILE`: imports users, in calls of 1,000, through the Identity Toolkit
/// `accounts:batchCreate` route, as `firebase auth:import` does.
struct AuthImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth:import",
        abstract: "Import users from a Firebase auth export or a Parse _User export.",
        discussion: """
            A Firebase export is {"users": [...]} with localId, email, passwordHash (base64), salt, displayName, \
            createdAt, lastSignedInAt, providerUserInfo...; users with a passwordHash need --hash-algo. \
            A Parse export ({"results": [...]} or an array of _User objects) keeps its bcrypt hashes: \
            the users sign in with their Parse passwords.
            """
    )

    @OptionGroup var target: EmulatorOptions

    @Argument(help: "The export file ('-' reads stdin).")
    var file: String

    @Option(help: "The export's format.")
    var from: AuthService.ExportFormat = .firebase

    @Option(name: .customLong("hash-algo"), help: "The password hash algorithm of a Firebase export (BCRYPT).")
    var hashAlgorithm: String?

    func validate() throws {
        if let hashAlgorithm, hashAlgorithm.uppercased() != "BCRYPT" {
            throw ValidationError("--hash-algo \(hashAlgorithm) is not supported by the emulator; use BCRYPT")
        }
        if from == .parse, hashAlgorithm != nil {
            throw ValidationError("a Parse export is always BCRYPT: drop --hash-algo")
        }
    }

    func run() async throws {
        let api = try target.client()
        let export = try readJSONFile(file)
        let users: [JSONValue]
        let algorithm: String?
        do {
            (users, algorithm) = try AuthService.exportedUsers(export, format: from,
                hashAlgorithm: hashAlgorithm)
        } catch .notParse(let error) {
            throw CLIError("\(file) is not a Parse _User export: \(error)")
        } catch .notFirebase {
            throw CLIError("\(file) is not a Firebase auth export: expected {\"users\": [...]}")
        } catch .hashesWithoutAlgorithm {
            throw CLIError("users in \(file) have password hashes: give --hash-algo (BCRYPT)")
        }
        guard !users.isEmpty else { throw CLIError("\(file) has no users") }

        var failures: [String] = []
        var imported = 0
        let path = "/identitytoolkit.googleapis.com/v1/projects/\(api.project)/accounts:batchCreate"
        let batchSize = AuthUserImport.maximumUsers
        for start in stride(from: 0, to: users.count, by: batchSize) {
            let batch = Array(users[start..<min(start + batchSize, users.count)])
            var request: [String: JSONValue] = ["users": .array(batch)]
            if let algorithm { request["hashAlgorithm"] = .string(algorithm) }
            let answer = try await api.send("POST", path, json: .object(request), timeout: 300).json()
            let errors = answer["error"]?.arrayValue ?? []
            for error in errors {
                let index = start + (error["index"]?.numberValue.flatMap { Int(exactly: $0) } ?? 0)
                let uid = users.indices.contains(index) ? users[index]["localId"]?.stringValue ?? "?" : "?"
                failures.append("user \(index) (\(uid)): \(error["message"]?.stringValue ?? "rejected")")
            }
            imported += batch.count - errors.count
            status("imported \(imported) of \(users.count) users")
        }
        for failure in failures { try? FileHandle.standardError.write(contentsOf: Data("  \(failure)\n".utf8)) }
        guard failures.isEmpty else {
            throw CLIError("\(failures.count) of \(users.count) users were not imported (listed above)")
        }
        print("imported \(imported) user\(imported == 1 ? "" : "s")")
    }
}

extension AuthService.ExportFormat: ExpressibleByArgument {}
