import FirebaseEmulator
import Foundation
import CloudFunctions
import Testing

@Suite("AuthPasswordHasher")
struct AuthPasswordHasherTests {
    let hasher = AuthFixtures.hasher

    @Test("hashes with a fresh $2b$ salt and verifies")
    func hashAndVerify() throws {
        let hash = hasher.hash("correct horse")
        #expect(hash.hasPrefix("$2b$04$"))
        #expect(hash.count == 60)
        #expect(!hash.contains("correct horse"))
        #expect(hasher.verify("correct horse", against: hash))
        #expect(!hasher.verify("correct hors", against: hash))
        #expect(!hasher.verify("", against: hash))
        #expect(hasher.hash("correct horse") != hash)
    }

    @Test("verifies the $2a$ and $2y$ forms of the same hash")
    func variants() throws {
        let hash = hasher.hash("secret1")
        for prefix in ["$2a$", "$2y$"] {
            let variant = prefix + hash.dropFirst(4)
            #expect(hasher.verify("secret1", against: variant))
            #expect(!hasher.verify("secret2", against: variant))
        }
        #expect(!hasher.verify("secret1", against: "$2x$" + hash.dropFirst(4)))
    }

    @Test("verifies a known $2a$ vector")
    func knownVector() {
        // From the OpenBSD / crypt_blowfish test set: "U*U" with cost 5.
        let hash = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        #expect(hasher.verify("U*U", against: hash))
        #expect(!hasher.verify("U*V", against: hash))
    }

    @Test("refuses malformed hashes", arguments: [
        "", "plain", "$2b$04$short", "$2b$99$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2c$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW",
        "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOe!",
        "$1$abc$def",
    ])
    func malformed(hash: String) {
        #expect(!hasher.verify("U*U", against: hash))
    }

    @Test("refuses hashes costlier than its limit")
    func costLimit() {
        let limited = AuthPasswordHasher(cost: 4, maximumVerificationCost: 4)
        #expect(!limited.verify("U*U", against: "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"))
        // By default a cost-31 hash (an import's) is refused at once rather than computed for days.
        #expect(!AuthPasswordHasher().verify("U*U", against: "$2a$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"))
        #expect(AuthPasswordHasher().maximumVerificationCost == 16)
    }

    @Test("clamps its cost into 4...31")
    func clamps() {
        #expect(AuthPasswordHasher(cost: 1).cost == 4)
        #expect(AuthPasswordHasher(cost: 99).cost == 31)
        #expect(AuthPasswordHasher().cost == 10)
    }

    @Test("hashes only what bcrypt reads: up to a NUL and 72 bytes")
    func truncation() throws {
        let long = String(repeating: "a", count: 72)
        let hash = hasher.hash(long)
        #expect(hasher.verify(long + "tail", against: hash))
        let accents = hasher.hash(String(repeating: "é", count: 36))
        #expect(hasher.verify(String(repeating: "é", count: 300), against: accents))
        #expect(hasher.verify("abc", against: hasher.hash("abc\u{0}def")))
    }

    @Test("hashes concurrently")
    func concurrent() async throws {
        let hasher = self.hasher
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let hash = hasher.hash("password\(index)")
                    return hasher.verify("password\(index)", against: hash) && !hasher.verify("x", against: hash)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}
