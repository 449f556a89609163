import CloudFunctions
import FirebaseHTTP
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Remote Config over HTTP: gzipped answers", .timeLimit(.minutes(1)))
struct RemoteConfigGzipTests {
    /// `{"parameters":{"color":{"defaultValue":{"value":"green"}}},"version":{"versionNumber":"3",
    /// "updateType":"INCREMENTAL_UPDATE"}}`, gzipped (Python's gzip.compress, mtime 0).
    static let gzippedTemplate = Data(base64Encoded: "H4sIAAAAAAACA6tWKkgsSsxNLUktKlayqlZKzs/JLwIxUlLTEktzSsISc0pTQfwyCEMpvSg1NU+"
        + "ptrZWR6kMqCczPw8sC2H6leYmpQK1Kxkr6SiVFqQklqSGVBaAtHn6OQe5+rr6hTj6xIcGuDiGuALNAAByUwPtfQAAAA==")!

    @Test("the client asks for gzip, as Google's API sends the ETag reliably only then, and reads the inflated template")
    func gzippedTemplate() async throws {
        let router = Router()
        router.get("v1/projects/p/remoteConfig") { request, _ -> Response in
            guard request.headers[.acceptEncoding]?.contains("gzip") == true,
                request.headers[.authorization] == "Bearer token-1"
            else { return Response(status: .badRequest) }
            return Response(status: .ok,
                headers: [.contentType: "application/json; charset=UTF-8", .contentEncoding: "gzip", .eTag: "etag-3"],
                body: .init(byteBuffer: ByteBuffer(bytes: Self.gzippedTemplate)))
        }
        try await Application(router: router).test(.live) { client in
            let base = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
            let remoteConfig = HTTPRemoteConfigClient(baseURL: base,
                credentials: FixedCredentials(project: "p", token: "token-1"))
            let snapshot = try await remoteConfig.getTemplate()
            #expect(snapshot.etag == "etag-3")
            #expect(snapshot.versionNumber == 3)
            #expect(snapshot.defaultValues == ["color": "green"])
        }
    }
}
