import Foundation

extension Data {
    /// The bytes as an array, copied in one move: `Array(data)` copies them one at a time
    /// (150 against 70 ns for an event's 230 bytes), and every JSON reader here starts with this.
    package var byteArray: [UInt8] {
        withUnsafeBytes { [UInt8]($0) }
    }
}
