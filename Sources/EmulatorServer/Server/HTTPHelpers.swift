import CloudFunctions
import FirebaseEmulator
import Foundation
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

extension Response {
    /// A JSON response.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        let body = ResponseBody(byteBuffer: ByteBuffer(bytes: value.serializedBytes()))
        return Response(status: status, headers: headers, body: body)
    }
}

extension Request {
    /// Whether the request carries the emulator's admin credential (`Authorization: Bearer owner`,
    /// or a Google OAuth token, which the Firebase emulators also accept as admin).
    var isAdmin: Bool {
        guard let authorization = headers[.authorization]?.utf8, let space = authorization.firstIndex(of: 0x20)
        else { return false }
        // Compared as bytes, without lower-cased copies: every request asks. Setting bit 0x20
        // folds the case of ASCII letters, which are all these words hold.
        func isWord(_ bytes: Substring.UTF8View, _ word: String) -> Bool {
            bytes.elementsEqual(word.utf8) { $0 | 0x20 == $1 | 0x20 }
        }
        let token = authorization[authorization.index(after: space)...]
        guard isWord(authorization[..<space], "bearer") else { return false }
        return isWord(token, "owner") || token.starts(with: "ya29.".utf8)
    }

    /// The body, refused with 413 when it is larger than `limit` (checked while reading, so a
    /// large body is never buffered).
    mutating func bodyData(limit: Int) async throws -> Data {
        if let length = headers[.contentLength].flatMap(Int.init), length > limit {
            throw ServiceError(.payloadTooLarge, "The request body is \(length) bytes; the limit is \(limit) bytes.")
        }
        do {
            return Data(buffer: try await collectBody(upTo: limit))
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw ServiceError(.payloadTooLarge, "The request body is larger than the limit of \(limit) bytes.")
        }
    }

    /// The body as JSON; an empty body is `null`.
    ///
    /// - Throws: `INVALID_ARGUMENT` when the body is not JSON.
    mutating func jsonBody(limit: Int) async throws -> JSONValue {
        let data = try await bodyData(limit: limit)
        if data.isEmpty { return .null }
        do {
            return try JSONValue(parsing: data)
        } catch {
            throw ServiceError(.invalidArgument, "Invalid JSON payload received. The body is not valid JSON.")
        }
    }
}
