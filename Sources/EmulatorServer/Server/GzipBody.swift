import CZlib
import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation

/// Request bodies that may be gzipped.
///
/// Device SDKs send `Content-Encoding: gzip` to Remote Config, but only the iOS SDK really
/// compresses the body (the Web SDK sends the header over plain JSON), so the header is
/// ignored and the body is sniffed for the gzip magic bytes `1f 8b` instead. Inflating uses the
/// system zlib (Foundation on Linux has no gzip decoder).
enum GzipBody {
    /// Whether `data` starts with the gzip magic bytes.
    static func isGzipped(_ data: Data) -> Bool {
        data.count >= 2 && data[data.startIndex] == 0x1f && data[data.startIndex + 1] == 0x8b
    }

    /// The body, inflated when it is gzipped, unchanged otherwise.
    ///
    /// - Parameter limit: the largest inflated size accepted (the server's body limit), so a small
    ///   compressed body cannot expand without bound.
    /// - Throws: 400 `INVALID_ARGUMENT` for a corrupt gzip stream, 413 `RESOURCE_EXHAUSTED` when
    ///   the inflated body is over `limit`.
    static func decoded(_ data: Data, limit: Int) throws(ServiceError) -> Data {
        guard isGzipped(data) else { return data }
        return try inflate(data, limit: limit)
    }

    /// Inflates a gzip stream (members concatenated are read as one body).
    static func inflate(_ data: Data, limit: Int) throws(ServiceError) -> Data {
        var stream = z_stream()
        // 15 window bits + 16: a gzip wrapper, not zlib's.
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ServiceError(.internal, "zlib could not be initialised.")
        }
        defer { inflateEnd(&stream) }
        var input = data.byteArray
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let tooLarge: Int32 = -1_000
        let status: Int32 = input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            while true {
                let result = chunk.withUnsafeMutableBufferPointer { chunkBuffer -> Int32 in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = uInt(chunkBuffer.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
                if output.count > limit { return tooLarge }
                switch result {
                case Z_STREAM_END:
                    // Another gzip member may follow.
                    guard stream.avail_in > 0 else { return Z_STREAM_END }
                    guard inflateReset(&stream) == Z_OK else { return Z_DATA_ERROR }
                case Z_OK:
                    if stream.avail_in == 0 && stream.avail_out > 0 { return Z_BUF_ERROR }
                default:
                    return result
                }
            }
        }
        switch status {
        case Z_STREAM_END:
            return output
        case tooLarge:
            throw ServiceError(.payloadTooLarge,
                "The inflated request body is larger than the limit of \(limit) bytes.")
        default:
            throw ServiceError(.invalidArgument, "The request body is not a valid gzip stream (zlib status \(status)).")
        }
    }
}
