import CloudFunctions
import Foundation

/// The reference vectors copied into this test target.
enum Fixture {
    static func data(_ name: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
            throw FixtureError(name: name)
        }
        return try Data(contentsOf: url)
    }

    static func json(_ name: String) throws -> JSONValue {
        try JSONValue(parsing: data(name))
    }

    struct FixtureError: Error { let name: String }
}
