import CloudFunctions
import Foundation

/// Realtime Database security rules (`database.rules.json`), loaded and checked once, then
/// asked for every request that is not an administrator's.
///
/// - Reads: `.read` from the root down to the location; the first that grants wins (a grant
///   cannot be taken back deeper), and rules below never grant a read of their parent.
/// - Writes: `.write` from the root down to the location (never below it), then `.validate`
///   on every node of the result that has data, the location's ancestors and descendants
///   included; validation does not cascade and does not run for deleted nodes. A multi-path
///   update is merged first and every location it names must pass.
/// - Variables: `auth` (null when signed out), `root`, `data`, `newData` (writes), `now`,
///   `query` (reads) and the `$location` names in scope. A rule that fails at run time
///   (a method called on null, say) is false.
public struct DatabaseRules: Sendable {
    final class Node: Sendable {
        let read: RuleExpression?
        let write: RuleExpression?
        let validate: RuleExpression?
        let indexOn: [String]
        let children: [String: Node]
        let wildcard: (name: String, node: Node)?

        init(read: RuleExpression?, write: RuleExpression?, validate: RuleExpression?, indexOn: [String],
            children: [String: Node], wildcard: (name: String, node: Node)?)
        {
            self.read = read
            self.write = write
            self.validate = validate
            self.indexOn = indexOn
            self.children = children
            self.wildcard = wildcard
        }

        /// The rules for child `key`; a `$location` it goes through is bound to `key` in `variables`.
        func child(_ key: String, binding variables: inout [String: RuleValue]) -> Node? {
            if let literal = children[key] { return literal }
            guard let wildcard else { return nil }
            variables[wildcard.name] = .string(key)
            return wildcard.node
        }
    }

    let root: Node
    /// The text the rules were read from.
    public let text: String

    /// Rules that allow every read and write: the emulator's default without a rules file.
    public static let open = try! DatabaseRules(text: #"{"rules": {".read": true, ".write": true}}"#)

    /// Reads and checks a rules file.
    ///
    /// - Throws: ``DatabaseRulesError`` with the line and column of the first problem: a syntax
    ///   error, an unknown variable or method, a rule that is not boolean, a bad regular expression.
    package init(text: String) throws(DatabaseRulesError) {
        self.text = text
        let source = try RulesSource.parse(text)
        guard case .object(let members, _) = source, let rules = members.first(where: { $0.key == "rules" }) else {
            throw DatabaseRulesError(text: text, offset: 1, message: "Expected 'rules' property.")
        }
        if let other = members.first(where: { $0.key != "rules" }) {
            throw DatabaseRulesError(text: text, offset: other.offset, message: "Unexpected property '\(other.key)'.")
        }
        root = try Self.node(rules.value, scope: [], text: text)
    }

    private static func node(_ source: RulesSource, scope: Set<String>, text: String) throws(DatabaseRulesError)
        -> Node
    {
        guard case .object(let members, _) = source else {
            throw DatabaseRulesError(text: text, offset: source.offset, message: "Rules must be objects.")
        }
        var read: RuleExpression?
        var write: RuleExpression?
        var validate: RuleExpression?
        var indexOn: [String] = []
        var children: [String: Node] = [:]
        var wildcard: (name: String, node: Node)?
        let base: Set<String> = ["auth", "root", "data", "now"]
        for member in members {
            switch member.key {
            case ".read":
                read = try expression(member.value, variables: base.union(scope).union(["query"]), text: text)
            case ".write":
                write = try expression(member.value, variables: base.union(scope).union(["newData"]), text: text)
            case ".validate":
                validate = try expression(member.value, variables: base.union(scope).union(["newData"]), text: text)
            case ".indexOn":
                switch member.value {
                case .string(let field, _): indexOn = [field]
                case .array(let fields, _):
                    for field in fields {
                        guard case .string(let name, _) = field else {
                            throw DatabaseRulesError(text: text, offset: field.offset, message: ".indexOn takes strings.")
                        }
                        indexOn.append(name)
                    }
                default:
                    throw DatabaseRulesError(text: text, offset: member.value.offset, message: ".indexOn takes strings.")
                }
            case let key where key.hasPrefix("."):
                throw DatabaseRulesError(text: text, offset: member.offset, message: "Invalid rule type '\(key)'.")
            case let key where key.hasPrefix("$"):
                guard wildcard == nil else {
                    throw DatabaseRulesError(text: text, offset: member.offset,
                        message: "There can only be one wildchild at a given path.")
                }
                guard !scope.contains(key) else {
                    throw DatabaseRulesError(text: text, offset: member.offset,
                        message: "'\(key)' is already used by an enclosing rule.")
                }
                wildcard = (key, try node(member.value, scope: scope.union([key]), text: text))
            default:
                children[member.key] = try node(member.value, scope: scope, text: text)
            }
        }
        return Node(read: read, write: write, validate: validate, indexOn: indexOn, children: children,
            wildcard: wildcard)
    }

    private static func expression(_ source: RulesSource, variables: Set<String>, text: String)
        throws(DatabaseRulesError) -> RuleExpression
    {
        switch source {
        case .bool(let value, _): return .literal(.bool(value))
        case .string(let expression, let offset):
            return try RuleExpressionParser.parse(expression, variables: variables, offset: offset, fileText: text)
        default:
            throw DatabaseRulesError(text: text, offset: source.offset, message: "Rules must be booleans or strings.")
        }
    }

    // MARK: Indexes

    /// Whether a query ordered by `orderBy` (a REST `orderBy` value: `"$key"`, `"$value"`,
    /// `"$priority"` or a child path) at `path` has the index it needs: keys and priorities
    /// need none; values need `".value"` and children their name in the location's `.indexOn`.
    public func hasIndex(at path: DatabasePath, orderBy: String) -> Bool {
        guard orderBy != "$key", orderBy != "$priority" else { return true }
        var node: Node? = root
        for key in path.segments { node = node.flatMap { $0.children[key] ?? $0.wildcard?.node } }
        let needed = orderBy == "$value" ? ".value" : orderBy
        return node?.indexOn.contains(needed) ?? false
    }

    // MARK: Access

    /// Whether a client with `auth` (JSON `null` when signed out) may read `path`.
    ///
    /// - Parameter query: the REST query parameters (`orderBy`, `limitToFirst`, ...), for `query`.
    public func canRead(_ path: DatabasePath, tree: JSONValue, auth: JSONValue, query: [String: String] = [:],
        now: Date) -> Bool
    {
        var variables = Self.variables(auth: auth, tree: tree, now: now)
        variables["query"] = Self.queryVariable(query)
        var node: Node? = root
        var segments: [String] = []
        for index in 0...path.segments.count {
            guard let current = node else { return false }
            variables["data"] = .snapshot(tree: tree, path: segments)
            if let read = current.read, RuleEvaluator(variables: variables).allows(read) { return true }
            guard index < path.segments.count else { break }
            let key = path.segments[index]
            segments.append(key)
            guard let child = current.child(key, binding: &variables) else { return false }
            node = child
        }
        return false
    }

    /// Whether a client with `auth` may change the data at every location in `paths`, `old`
    /// being the whole tree before and `new` after (the write, or every part of an update, applied).
    public func canWrite(_ paths: [DatabasePath], old: JSONValue, new: JSONValue, auth: JSONValue, now: Date) -> Bool {
        let variables = Self.variables(auth: auth, tree: old, now: now)
        return paths.allSatisfy { canWrite($0, old: old, new: new, variables: variables) }
    }

    private func canWrite(_ path: DatabasePath, old: JSONValue, new: JSONValue, variables start: [String: RuleValue])
        -> Bool
    {
        var variables = start
        var permitted = false
        var node: Node? = root
        var segments: [String] = []
        for index in 0...path.segments.count {
            guard let current = node else { return permitted }
            variables["data"] = .snapshot(tree: old, path: segments)
            variables["newData"] = .snapshot(tree: new, path: segments)
            let exists = !DatabaseTree.storedValue(in: new, at: DatabasePath(uncheckedSegments: segments)).isNull
            let evaluator = RuleEvaluator(variables: variables)
            if !permitted, let write = current.write { permitted = evaluator.allows(write) }
            if exists, let validate = current.validate, !evaluator.allows(validate) { return false }
            if index == path.segments.count {
                return permitted && (!exists || validateBelow(current, tree: new, old: old, path: segments,
                    variables: variables))
            }
            let key = path.segments[index]
            segments.append(key)
            guard let child = current.child(key, binding: &variables) else { return permitted }
            node = child
        }
        return permitted
    }

    /// `.validate` of every node below `path` that has data in `tree`.
    private func validateBelow(_ node: Node, tree: JSONValue, old: JSONValue, path: [String],
        variables: [String: RuleValue]) -> Bool
    {
        guard case .object(let members) = DatabaseTree.storedValue(in: tree, at: DatabasePath(uncheckedSegments: path))
        else { return true }
        for key in members.keys where !key.hasPrefix(".") {
            var scope = variables
            guard let child = node.child(key, binding: &scope) else { continue }
            let childPath = path + [key]
            scope["data"] = .snapshot(tree: old, path: childPath)
            scope["newData"] = .snapshot(tree: tree, path: childPath)
            if let validate = child.validate, !RuleEvaluator(variables: scope).allows(validate) { return false }
            if !validateBelow(child, tree: tree, old: old, path: childPath, variables: scope) { return false }
        }
        return true
    }

    private static func variables(auth: JSONValue, tree: JSONValue, now: Date) -> [String: RuleValue] {
        [
            "auth": auth.isNull ? .null : .json(auth),
            "root": .snapshot(tree: tree, path: []),
            "now": .number((now.timeIntervalSince1970 * 1000).rounded(.down)),
        ]
    }

    /// `query.*` from the REST query parameters; with no ordering, `orderByKey` is true.
    static func queryVariable(_ parameters: [String: String]) -> RuleValue {
        let orderBy = parameters["orderBy"].flatMap { try? JSONValue(parsing: $0) }?.stringValue
        func bound(_ name: String) -> RuleValue {
            parameters[name].flatMap { try? JSONValue(parsing: $0) }.map(RuleValue.init) ?? .null
        }
        func limit(_ name: String) -> RuleValue {
            parameters[name].flatMap(Double.init).map(RuleValue.number) ?? .null
        }
        return .query([
            "orderByKey": .bool(orderBy == nil || orderBy == "$key"),
            "orderByValue": .bool(orderBy == "$value"),
            "orderByPriority": .bool(orderBy == "$priority"),
            "orderByChild": orderBy.flatMap { $0.hasPrefix("$") ? nil : RuleValue.string($0) } ?? .null,
            "startAt": bound("startAt"), "endAt": bound("endAt"), "equalTo": bound("equalTo"),
            "limitToFirst": limit("limitToFirst"), "limitToLast": limit("limitToLast"),
        ])
    }

    /// The `auth` variable of a signed-in user: `uid`, `provider` and the ID token's claims as
    /// `token`.
    public static func auth(uid: String, claims: [String: JSONValue]) -> JSONValue {
        let signIn = claims["firebase"]?["sign_in_provider"]?.stringValue ?? "custom"
        let provider = signIn.hasSuffix(".com") ? String(signIn.dropLast(4)) : signIn
        return ["uid": .string(uid), "provider": .string(provider), "token": .object(claims)]
    }
}

extension ServiceError {
    /// A read or write the security rules do not allow, as the Realtime Database answers it.
    public static let permissionDeniedByRules = ServiceError(.permissionDeniedByRules, "Permission denied")
}
