import Foundation
import CloudFunctions

/// A validated location in a Realtime Database: a list of keys from the root.
///
/// Parsing strips leading and trailing `/` and collapses empty segments, so `"/a//b/"` is `a/b`.
/// Percent-decoding is the caller's job. Every segment obeys the key rules of ``DatabaseKey``
/// and a path has at most ``maximumDepth`` segments.
public struct DatabasePath: Sendable, Hashable, CustomStringConvertible {
    /// The deepest a path (and any node below the root) may be.
    public static let maximumDepth = 32

    /// The root location.
    public static let root = DatabasePath(uncheckedSegments: [])

    /// The keys from the root to this location; empty for the root.
    public let segments: [String]

    /// Parses and validates a `/`-separated path.
    ///
    /// - Throws: `ServiceError.invalidArgument` (`Invalid path: ...`) for a bad segment or depth.
    public init(_ string: String) throws(ServiceError) {
        let segments = string.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        try self.init(segments: segments)
    }

    /// Creates a path from already separated segments, validating each one.
    ///
    /// - Throws: `ServiceError.invalidArgument` when a segment is empty, contains `/` or another
    ///   forbidden character, or the path is too deep.
    public init(segments: [String]) throws(ServiceError) {
        guard segments.count <= Self.maximumDepth else { throw DatabaseErrorMessage.pathTooDeep(segments.count) }
        for segment in segments {
            if let reason = DatabaseKey.pathSegmentProblem(segment) {
                throw DatabaseErrorMessage.invalidPathSegment(segment, reason: reason)
            }
        }
        self.segments = segments
    }

    init(uncheckedSegments: [String]) {
        self.segments = uncheckedSegments
    }

    /// Whether this is the root location.
    public var isRoot: Bool { segments.isEmpty }

    /// The number of segments.
    public var depth: Int { segments.count }

    /// The last segment (the node's key); `nil` for the root.
    public var key: String? { segments.last }

    /// The enclosing location; `nil` for the root.
    public var parent: DatabasePath? {
        isRoot ? nil : DatabasePath(uncheckedSegments: Array(segments.dropLast()))
    }

    /// The location `path` below this one; `path` may contain `/`.
    ///
    /// - Throws: `ServiceError.invalidArgument` for a bad segment or when the result is too deep.
    public func child(_ path: String) throws(ServiceError) -> DatabasePath {
        try appending(DatabasePath(path))
    }

    /// The location `other` (taken as relative) below this one.
    ///
    /// - Throws: `ServiceError.invalidArgument` when the result is deeper than ``maximumDepth``.
    public func appending(_ other: DatabasePath) throws(ServiceError) -> DatabasePath {
        let depth = segments.count + other.segments.count
        guard depth <= Self.maximumDepth else { throw DatabaseErrorMessage.pathTooDeep(depth) }
        return DatabasePath(uncheckedSegments: segments + other.segments)
    }

    /// Whether this location is a strict ancestor of `other`.
    public func isAncestor(of other: DatabasePath) -> Bool {
        segments.count < other.segments.count && other.segments.starts(with: segments)
    }

    /// Whether this location equals `other` or is an ancestor of it.
    public func contains(_ other: DatabasePath) -> Bool {
        segments.count <= other.segments.count && other.segments.starts(with: segments)
    }

    /// Whether one of the two locations contains the other (a write to one affects the other).
    public func overlaps(_ other: DatabasePath) -> Bool {
        contains(other) || other.contains(self)
    }

    /// The path of `descendant` relative to this location, or `nil` when this does not contain it.
    public func relativePath(to descendant: DatabasePath) -> DatabasePath? {
        guard contains(descendant) else { return nil }
        return DatabasePath(uncheckedSegments: Array(descendant.segments.dropFirst(segments.count)))
    }

    /// The path as `/a/b`; `/` for the root.
    public var description: String {
        "/" + segments.joined(separator: "/")
    }
}
