import Foundation

extension String {
    /// The text with its `%XX` escapes decoded; `nil` when they do not decode to UTF-8. Text
    /// without `%` is returned as it is, without going through Foundation's decoding (which shows
    /// in profiles of the header, path and query reading that call this for every value).
    package var percentDecoded: String? {
        let percent = UInt8(ascii: "%")
        let escaped = utf8.withContiguousStorageIfAvailable { $0.contains(percent) } ?? utf8.contains(percent)
        return escaped ? removingPercentEncoding : self
    }
}
