import CloudEvents
import Foundation

/// An Eventarc path pattern such as `users/{uid}` or `something/{path=**}/else/{a}`.
///
/// Segments: a literal; `*` (one segment); `**` (zero or more segments); `{name}` or
/// `{name=*}` (one segment, captured); `{name=**}` (zero or more segments, captured joined
/// with `/`). Captured values are URI-decoded. Leading and trailing slashes are ignored and
/// `//` collapses, as the SDKs normalise paths. At most one multi-segment wildcard is allowed.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    /// One segment of a pattern.
    public enum Segment: Sendable, Hashable {
        /// Matches exactly this text.
        case literal(String)
        /// Matches one segment, captured under the name when there is one.
        case single(capture: String?)
        /// Matches zero or more segments, captured under the name when there is one.
        case multiple(capture: String?)
    }

    /// The normalised pattern text.
    public let text: String
    /// The parsed segments.
    public let segments: [Segment]
    private let multipleIndex: Int?
    /// Each segment's UTF-8 bytes when it is a literal, for matching byte by byte.
    private let literals: [[UInt8]?]

    /// Parses a pattern.
    ///
    /// - Throws: ``PathPatternError`` when a segment is malformed, a capture name is invalid
    ///   or repeated, or more than one multi-segment wildcard is used.
    public init(_ pattern: String) throws(PathPatternError) {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var segments: [Segment] = []
        var names: Set<String> = []
        for part in parts {
            let segment = try PathPattern.parseSegment(part, in: pattern)
            switch segment {
            case .single(let name?), .multiple(let name?):
                guard names.insert(name).inserted else {
                    throw PathPatternError(pattern: pattern, reason: "the capture '{\(name)}' appears twice")
                }
            default: break
            }
            segments.append(segment)
        }
        let multiples = segments.indices.filter {
            if case .multiple = segments[$0] { return true }
            return false
        }
        guard multiples.count <= 1 else {
            throw PathPatternError(pattern: pattern, reason: "only one multi-segment wildcard ('**') is allowed")
        }
        self.text = parts.joined(separator: "/")
        self.segments = segments
        self.multipleIndex = multiples.first
        self.literals = segments.map {
            if case .literal(let text) = $0 { Array(text.utf8) } else { nil }
        }
    }

    public var description: String { text }

    /// The names of the captures, in order.
    public var captureNames: [String] {
        segments.compactMap {
            switch $0 {
            case .single(let name), .multiple(let name): name
            case .literal: nil
            }
        }
    }

    /// Whether the pattern has any wildcard.
    public var hasWildcards: Bool {
        segments.contains {
            if case .literal = $0 { return false }
            return true
        }
    }

    private static func parseSegment(_ part: String, in pattern: String) throws(PathPatternError) -> Segment {
        if part == "*" { return .single(capture: nil) }
        if part == "**" { return .multiple(capture: nil) }
        if part.hasPrefix("{") && part.hasSuffix("}") && part.count >= 2 {
            let inner = part.dropFirst().dropLast()
            let pieces = inner.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pieces[0])
            guard isValidName(name) else {
                throw PathPatternError(
                    pattern: pattern,
                    reason: "'\(name)' in '\(part)' is not a valid capture name (letters, digits, '_')"
                )
            }
            guard pieces.count == 2 else { return .single(capture: name) }
            switch pieces[1] {
            case "*": return .single(capture: name)
            case "**": return .multiple(capture: name)
            default:
                throw PathPatternError(pattern: pattern, reason: "'\(part)' must capture '*' or '**'")
            }
        }
        if part.contains(where: { "{}*".contains($0) }) {
            throw PathPatternError(
                pattern: pattern,
                reason: "segment '\(part)' mixes text with a wildcard; a wildcard must be a whole segment"
            )
        }
        return .literal(part)
    }

    private static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else {
            return false
        }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        }
    }
}

extension PathPattern {
    /// Matches a concrete path and returns the captures, or `nil` when it does not match.
    public func match(_ path: String) -> [String: String]? {
        guard multipleIndex == nil else { return matchWithMultiple(path) }
        var captures: [String: String] = [:]
        let matched = PathPattern.withUTF8(path) { bytes in
            pair(bytes) { index, part in
                guard case .single(let name?) = segments[index] else { return }
                captures[name] = PathPattern.decode(String(decoding: part, as: UTF8.self))
            }
        }
        return matched ? captures : nil
    }

    /// Whether a concrete path matches; without `**`, this allocates nothing.
    public func matches(_ path: String) -> Bool {
        guard multipleIndex == nil else { return matchWithMultiple(path) != nil }
        return PathPattern.withUTF8(path) { bytes in pair(bytes) { _, _ in } }
    }

    /// Pairs the path's segments with the pattern's one to one (a pattern without `**`),
    /// comparing literals byte for byte as the database stores paths: `false` on a mismatch
    /// or a different number of segments. `wildcard` gets each segment a wildcard takes.
    private func pair(
        _ bytes: UnsafeBufferPointer<UInt8>, wildcard: (Int, UnsafeBufferPointer<UInt8>) -> Void
    ) -> Bool {
        var position = 0
        for index in segments.indices {
            guard let part = PathPattern.nextSegment(of: bytes, from: &position) else { return false }
            if let literal = literals[index] {
                guard part.elementsEqual(literal) else { return false }
            } else {
                wildcard(index, part)
            }
        }
        return PathPattern.nextSegment(of: bytes, from: &position) == nil
    }

    /// Matching for a pattern with a multi-segment wildcard: the segments before it match from
    /// the start, those after it from the end, and it takes what is left.
    private func matchWithMultiple(_ path: String) -> [String: String]? {
        guard let multipleIndex else { return nil }
        // Most paths fail on a leading literal: reject those before splitting.
        if case .literal(let first)? = segments.first, !PathPattern.firstSegment(of: path).utf8.elementsEqual(first.utf8) {
            return nil
        }
        // Split on the bytes, as the matching without `**` does (a combining mark after a `/`
        // must not join it).
        let parts = path.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) }
        var captures: [String: String] = [:]
        let suffixCount = segments.count - multipleIndex - 1
        guard parts.count >= segments.count - 1 else { return nil }
        for index in 0..<multipleIndex {
            guard PathPattern.matchOne(segments[index], parts[index], into: &captures) else { return nil }
        }
        for offset in 0..<suffixCount {
            let segment = segments[segments.count - 1 - offset]
            guard PathPattern.matchOne(segment, parts[parts.count - 1 - offset], into: &captures) else { return nil }
        }
        if case .multiple(let name?) = segments[multipleIndex] {
            let middle = parts[multipleIndex..<(parts.count - suffixCount)]
            captures[name] = middle.map { PathPattern.decode(String($0)) }.joined(separator: "/")
        }
        return captures
    }

    private static func matchOne(_ segment: Segment, _ part: Substring, into captures: inout [String: String]) -> Bool {
        switch segment {
        case .literal(let text): return part.utf8.elementsEqual(text.utf8)
        case .single(let name):
            if let name { captures[name] = decode(String(part)) }
            return true
        case .multiple: return true
        }
    }

    /// The next non-empty `/`-separated segment at or after `position`, which moves past it.
    private static func nextSegment(
        of bytes: UnsafeBufferPointer<UInt8>, from position: inout Int
    ) -> UnsafeBufferPointer<UInt8>? {
        let slash = UInt8(ascii: "/")
        while position < bytes.count, bytes[position] == slash { position += 1 }
        guard position < bytes.count else { return nil }
        let start = position
        while position < bytes.count, bytes[position] != slash { position += 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<position])
    }

    /// The first non-empty `/`-separated segment of a path, split on bytes as matching does
    /// (empty when there is none).
    package static func firstSegment(of path: String) -> String {
        withUTF8(path) { bytes in
            var position = 0
            return nextSegment(of: bytes, from: &position).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
    }

    private static func withUTF8<Result>(_ path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var path = path
        return path.withUTF8(body)
    }

    /// A captured segment, URI-decoded.
    private static func decode(_ text: String) -> String {
        text.percentDecoded ?? text
    }
}
