import CloudFunctions
import Foundation

/// One logged write: what to replay to rebuild a tree, with server values and push ids resolved.
///
/// A `set` (also push and delete) stores the value at `path`; an `update` stores an object
/// whose keys are the written locations relative to `path` (`"a/b"`).
struct DatabaseLogEntry: Sendable, Hashable {
    enum Kind: String, Sendable {
        case set
        case update
    }

    var kind: Kind
    var path: DatabasePath
    /// Storage form.
    var value: JSONValue

    init(kind: Kind, path: DatabasePath, value: JSONValue) {
        self.kind = kind
        self.path = path
        self.value = value
    }

    /// The entry for a write that `change` describes.
    init(change: DatabaseWriteChange, isUpdate: Bool) {
        guard isUpdate else {
            self.init(kind: .set, path: change.path, value: change.after)
            return
        }
        var members: [String: JSONValue] = [:]
        for written in change.writtenPaths {
            let relative = change.path.relativePath(to: written)?.segments.joined(separator: "/") ?? ""
            members[relative] = change.after(at: written) ?? .null
        }
        self.init(kind: .update, path: change.path, value: .object(members))
    }

    /// Applies the entry to a tree.
    func replay(on tree: inout DatabaseTree) {
        switch kind {
        case .set:
            DatabaseTree.replace(in: &tree.root, segments: path.segments[...], with: value)
        case .update:
            for (relative, member) in value.objectValue ?? [:] {
                let segments = path.segments + relative.split(separator: "/").map(String.init)
                DatabaseTree.replace(in: &tree.root, segments: segments[...], with: member)
            }
        }
    }
}

extension DatabaseTree {
    /// Undoes a write this tree has just applied (the tree must not have changed since).
    mutating func revert(_ change: DatabaseWriteChange) {
        for entry in change.overwritten.reversed() {
            Self.replace(in: &root, segments: entry.path.segments[...], with: entry.value)
        }
    }
}
