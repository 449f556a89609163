import FirebaseEmulator
import Foundation
import CloudFunctions

/// Shared fixtures of the Auth tests.
enum AuthFixtures {
    /// 2020-05-26T10:42:27.123Z.
    static let created = Date(timeIntervalSince1970: 1_590_489_747.123)
    /// 2020-10-24T11:00:00Z.
    static let lastLogin = Date(timeIntervalSince1970: 1_603_537_200)
    /// A fast hasher for tests.
    static let hasher = AuthPasswordHasher(cost: 4)

    /// Runs `body` and returns the `ServiceError` message it throws, or `nil`.
    static func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ServiceError {
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    /// Runs `body` and returns the `ServiceError` message it throws, or `nil`.
    static func message(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as ServiceError {
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }
}
