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
    /// The first segment when it is a literal, to reject most paths without splitting them.
    private let leadingLiteral: String?

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
        if case .literal(let text)? = segments.first { leadingLiteral = text } else { leadingLiteral = nil }
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
        if let leadingLiteral, !PathPattern.startsWithSegment(path, leadingLiteral) { return nil }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        var captures: [String: String] = [:]
        guard let multipleIndex else {
            guard parts.count == segments.count else { return nil }
            for (segment, part) in zip(segments, parts) {
                guard PathPattern.matchOne(segment, part, into: &captures) else { return nil }
            }
            return captures
        }
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
            captures[name] = middle.map { PathPattern.decode($0) }.joined(separator: "/")
        }
        return captures
    }

    /// Whether a concrete path matches.
    public func matches(_ path: String) -> Bool { match(path) != nil }

    private static func matchOne(_ segment: Segment, _ part: Substring, into captures: inout [String: String]) -> Bool {
        switch segment {
        case .literal(let text): return part == text
        case .single(let name):
            if let name { captures[name] = decode(part) }
            return true
        case .multiple: return true
        }
    }

    private static func startsWithSegment(_ path: String, _ segment: String) -> Bool {
        var rest = Substring(path)
        while rest.first == "/" { rest = rest.dropFirst() }
        guard rest.hasPrefix(segment) else { return false }
        let after = rest.dropFirst(segment.count)
        return after.isEmpty || after.first == "/"
    }

    private static func decode(_ part: Substring) -> String {
        guard part.contains("%") else { return String(part) }
        return part.removingPercentEncoding ?? String(part)
    }
}
