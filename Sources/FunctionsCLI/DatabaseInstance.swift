import ArgumentParser
import Foundation

/// `--instance` of the `database:` commands: the Realtime Database instance they address.
struct DatabaseInstance: ParsableArguments {
    @Option(help: "The database instance (default: PROJECT-default-rtdb).")
    var instance: String?

    /// The `ns` query item that names the instance, the project's default one unless told.
    func namespace(project: String) -> URLQueryItem {
        URLQueryItem(name: "ns", value: instance ?? "\(project)-default-rtdb")
    }
}
