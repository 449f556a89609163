import CloudFunctions
@testable import EmulatorServer
import FirebaseEmulator
import Foundation
import Testing

@Suite("Gzip bodies")
struct GzipBodyTests {
    @Test("inflates gzip, passes plain bodies through, and joins concatenated members")
    func inflates() throws {
        let text = String(repeating: "{app_id:'1:1:ios:a'}", count: 2_000)
        #expect(try GzipBody.decoded(TestGzip.compress(text), limit: 1 << 20) == Data(text.utf8))
        #expect(try GzipBody.decoded(Data("{}".utf8), limit: 1 << 20) == Data("{}".utf8))
        #expect(try GzipBody.decoded(Data(), limit: 1 << 20) == Data())
        let joined = TestGzip.compress("ab") + TestGzip.compress("cd")
        #expect(try GzipBody.decoded(joined, limit: 1 << 20) == Data("abcd".utf8))
    }

    @Test("a truncated stream is INVALID_ARGUMENT; one inflating past the limit is 413")
    func refuses() {
        let compressed = TestGzip.compress(String(repeating: "x", count: 10_000))
        #expect { try GzipBody.decoded(compressed.prefix(compressed.count - 6), limit: 1 << 20) } throws: {
            ($0 as? ServiceError)?.status == "INVALID_ARGUMENT"
        }
        #expect { try GzipBody.decoded(compressed, limit: 1_000) } throws: {
            ($0 as? ServiceError)?.httpStatus == 413
        }
    }
}
