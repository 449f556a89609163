import FirebaseEmulator
import Foundation
import CloudFunctions
import Testing

@Suite("AuthBase64")
struct AuthBase64Tests {
    @Test("decodes standard and URL-safe base64, padded or not",
          arguments: ["+/+/", "-_-_", "-_-__w==", "-_-__w", "+/+/ww=="])
    func decodes(text: String) throws {
        let data = try #require(AuthBase64.decode(text))
        #expect(Array(data.prefix(3)) == [0xFB, 0xFF, 0xBF])
    }

    @Test("rejects text that is not base64", arguments: ["a", "ab=c", "a b c d", "****", "abcde"])
    func rejects(text: String) {
        #expect(AuthBase64.decode(text) == nil)
    }

    @Test("encodes URL-safe without padding")
    func encodes() {
        #expect(AuthBase64.urlEncoded(Data([0xFB, 0xFF, 0xBF, 0xFF])) == "-_-__w")
    }
}
