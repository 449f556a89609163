import CZlib
import Foundation

/// Gzips test bodies the way the iOS SDK does (a gzip wrapper around deflate).
enum TestGzip {
    static func compress(_ text: String) -> Data {
        var stream = z_stream()
        let status = deflateInit2_(
            &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK)
        defer { deflateEnd(&stream) }
        var input = [UInt8](text.utf8)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        let result = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        precondition(result == Z_STREAM_END)
        return Data(output[0..<Int(stream.total_out)])
    }
}
