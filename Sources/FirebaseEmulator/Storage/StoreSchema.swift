import GRDB

/// The tables one part of the emulator keeps, as a named, append-only migration.
///
/// Each service declares its own schema next to its code; ``EmulatorStore`` applies them all
/// in order when it opens a data directory.
package struct StoreSchema: Sendable {
    /// The migration's name; never rename one that has shipped.
    public let name: String
    let migrate: @Sendable (GRDB.Database) throws -> Void

    /// Creates a schema.
    public init(name: String, migrate: @escaping @Sendable (GRDB.Database) throws -> Void) {
        self.name = name
        self.migrate = migrate
    }
}
