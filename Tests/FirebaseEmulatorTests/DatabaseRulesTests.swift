import CloudFunctions
import FirebaseEmulator
import Foundation
import Testing

/// The rules language: loading errors with their positions, evaluation, and the read, write
/// and validate semantics, checked through the service as the REST routes use it.
@Suite("Database security rules")
struct DatabaseRulesTests {
    static let ns = "demo-default-rtdb"
    static let ada = DatabaseRules.auth(uid: "ada", claims: ["email": "ada@example.com", "admin": true,
        "firebase": ["sign_in_provider": "password"]])

    static func service(_ rules: String, data: JSONValue = .null) async throws -> DatabaseService {
        let emulator = try Emulator(project: "demo", directory: nil)
        if !data.isNull { try await emulator.database.set(namespace: ns, path: "/", value: data) }
        emulator.database.rules = try DatabaseRules(text: rules)
        return emulator.database
    }

    static func rule(_ expression: String, auth: JSONValue = .null, data: JSONValue = .null) async throws -> Bool {
        let text = "{\"rules\": {\".read\": \(JSONValue.string(expression).serialized())}}"
        let database = try await service(text, data: data)
        do {
            try database.checkRead(namespace: ns, path: "/", auth: auth)
            return true
        } catch {
            return false
        }
    }

    @Test("a broken rules file is refused with its line and column", arguments: [
        ("{\"rules\": {\n  \".read\": \"tr\"\n}}", "2:13: Unknown variable 'tr'."),
        ("{\"rules\": {\".read\": \"root.val().notFound == 1\"}}", "No such method/property 'notFound'."),
        ("{\"rules\": {\".read\": \"7\"}}", "Expression must evaluate to a boolean."),
        ("{\"rules\": {\".read\": \"auth.foo && true\"}}", "Operands of && must be boolean."),
        ("{\"rules\": {\".read\": \"newData.exists()\"}}", "Unknown variable 'newData'."),
        ("{\"rules\": {\"$a\": {\".read\": true}, \"$b\": {}}}", "only be one wildchild"),
        ("{\"rules\": {\"x\": {\".write\": \"$other == 'a'\"}}}", "Unknown variable '$other'."),
        ("{\"rules\": {\".read\": \"root.val().matches(/(^a$|b)/)\"}}", "Invalid regular expression."),
        ("{\"rules\": {\".read\": \"root.val().matches(/a/g)\"}}", "Invalid regular expression."),
        ("{\"rules\": {\".read\": \"root.hasChildren('a', 'b')\"}}", "hasChildren takes an array"),
        ("{\"rules\": {\".read\": true,}", "Parse error."),
        ("{\"rulez\": {}}", "Expected 'rules' property."),
        ("{\"rules\": {\".reed\": true}}", "Invalid rule type '.reed'."),
        // Nested beyond any real rules: refused, not a crash of the emulator (these ran it out of stack).
        ("{\"rules\": " + String(repeating: "[", count: 200_000), "Rules are nested too deeply."),
        ("{\"rules\": {\".read\": \"" + String(repeating: "!", count: 200_000) + "true\"}}", "Expression is nested or chained too deeply."),
        ("{\"rules\": {\".read\": \"" + String(repeating: "(", count: 200_000) + "true\"}}", "Expression is nested or chained too deeply."),
        // Chains build trees as deep as they are long: bounded too.
        ("{\"rules\": {\".read\": \"" + String(repeating: "true || ", count: 200_000) + "true\"}}",
            "Expression is nested or chained too deeply."),
        ("{\"rules\": {\".read\": \"data" + String(repeating: ".parent()", count: 200_000) + ".exists()\"}}",
            "Expression is nested or chained too deeply."),
    ])
    func loadErrors(text: String, expected: String) {
        let error = #expect(throws: DatabaseRulesError.self) { try DatabaseRules(text: text) }
        #expect(error?.description.contains(expected) == true, "\(String(describing: error))")
    }

    @Test("rules nested as deeply as real ones get are read")
    func nestedRules() async throws {
        // 41 negations of `auth == null`: true when signed in.
        let expression = String(repeating: "!(", count: 41) + "auth == null" + String(repeating: ")", count: 41)
        await #expect(try Self.rule(expression, auth: Self.ada))
        await #expect(try !Self.rule(expression))
        let path = (0..<30).map { "p\($0)" }
        let nested = path.reversed().reduce(#"{".read": true}"#) { inner, key in "{\"\(key)\": \(inner)}" }
        let database = try await Self.service("{\"rules\": \(nested)}")
        try database.checkRead(namespace: Self.ns, path: "/" + path.joined(separator: "/"), auth: .null)
        #expect(throws: (any Error).self) { try database.checkRead(namespace: Self.ns, path: "/p0", auth: .null) }
    }

    @Test("comments and line breaks inside rule strings are accepted, as in real rules files")
    func lenientFile() throws {
        let text = """
            {
              // who may read
              "rules": {
                /* everyone */ ".read": "auth != null
                    && auth.uid == 'ada'",
                ".write": false
              }
            }
            """
        let rules = try DatabaseRules(text: text)
        #expect(rules.canRead(.root, tree: .null, auth: Self.ada, now: Date()))
        #expect(!rules.canRead(.root, tree: .null, auth: .null, now: Date()))
    }

    @Test("expressions evaluate as the Realtime Database does; a runtime error makes the rule false", arguments: [
        ("auth.uid !== 'eviluser'", JSONValue.null, true),
        ("auth == null", .null, true),
        ("auth.uid == 'ada' && auth.token.email == 'ada@example.com' && auth.token.admin == true", ada, true),
        ("auth.provider == 'password'", ada, true),
        ("(1/0 + '') == 'NaN'", .null, true),
        ("('a' + 1) == 'a1'", .null, true),
        ("root.child('users/' + auth.uid).exists() || true", .null, false),
        ("auth.contains('x') || true", .null, false),
        ("root.parent().exists() || true", .null, false),
        ("'foo' > auth.foo || true", .null, false),
        ("query.orderByKey == true && query.orderByValue == false", .null, true),
        ("now > 1700000000000", .null, true),
        ("root.child('users/ada/name').val().matches(/^AD/i)", .null, true),
        ("root.child('users/ada/name').val().beginsWith('ad') && root.child('users/ada/name').val().length == 3",
            .null, true),
        ("root.child('users/ada/name').val().toUpperCase().replace('A', 'x') == 'xDx'", .null, true),
        ("root.child('users').hasChildren(['ada', 'bob']) && !root.child('users').hasChildren(['eve'])", .null, true),
        ("root.child('users/ada').hasChildren() && root.child('users/ada').hasChild('age')", .null, true),
        ("root.child('users/' + root.child('users/ada/age').val() * 1e18).exists() || true", .null, true),
        ("root.child('users/ada/age').isNumber() && root.child('users/ada/name').isString()", .null, true),
        ("root.child('users/ada/age').val() >= 18 ? true : false", .null, true),
        ("('' + 1e19) == '10000000000000000000' && ('' + 1.5) == '1.5'", .null, true),
        ("root.child('users/ada/email').val().matches(/^[^@]+@[^@$]+$/)", .null, true),
        ("root['exists']() == true", .null, true),
        ("-root.child('users/ada/age').val() == -36", .null, true),
        ("root.child('users/ada/age').val() % 5 == 1", .null, true),
        ("root.child('users/ada').val() == null", .null, false),
    ])
    func evaluation(expression: String, auth: JSONValue, expected: Bool) async throws {
        let data: JSONValue = ["users": ["ada": ["name": "ada", "age": 36, "email": "ada@example.com"],
            "bob": ["name": "bob"]]]
        await #expect(try Self.rule(expression, auth: auth, data: data) == expected, "\(expression)")
    }

    static let chat = """
        {"rules": {
          "public": {".read": true},
          "users": {
            "$uid": {
              ".read": "auth != null && auth.uid == $uid",
              ".write": "auth != null && auth.uid == $uid",
              ".validate": "newData.hasChildren(['name'])",
              "name": {".validate": "newData.isString() && newData.val().length <= 20"},
              "age": {".validate": "newData.isNumber() && newData.val() >= 0"},
              "$other": {".validate": false}
            }
          },
          "locked": {".write": true, "inner": {".write": false}}
        }}
        """

    @Test("reads: a grant cascades down, and rules below never grant a read of their parent")
    func reads() async throws {
        let database = try await Self.service(Self.chat, data: ["users": ["ada": ["name": "Ada"]], "public": ["x": 1]])
        try database.checkRead(namespace: Self.ns, path: "public/x", auth: .null)
        try database.checkRead(namespace: Self.ns, path: "users/ada", auth: Self.ada)
        try database.checkRead(namespace: Self.ns, path: "users/ada/name", auth: Self.ada)
        for (path, auth) in [("users/ada", JSONValue.null), ("users", Self.ada), ("/", Self.ada),
            ("users/bob", Self.ada)]
        {
            #expect(throws: ServiceError.permissionDeniedByRules) {
                try database.checkRead(namespace: Self.ns, path: path, auth: auth)
            }
        }
    }

    @Test("writes: .write grants, .validate checks every written node, deletes skip validation, nothing half-written")
    func writes() async throws {
        let database = try await Self.service(Self.chat, data: ["users": ["ada": ["name": "Ada"]]])
        try await database.write(DatabaseWrite(.set(["name": "Ada L", "age": 36]),
            namespace: Self.ns, path: "users/ada", rulesAuth: Self.ada))
        let refused: [(String, JSONValue, JSONValue)] = [
            ("users/bob", ["name": "Bob"], Self.ada),                  // not his own
            ("users/ada", ["name": "Ada"], .null),                     // signed out
            ("users/ada", ["age": 3], Self.ada),                       // no name (parent's .validate)
            ("users/ada", ["name": .string(String(repeating: "a", count: 21))], Self.ada),
            ("users/ada", ["name": "Ada", "age": -1], Self.ada),
            ("users/ada", ["name": "Ada", "extra": true], Self.ada),   // $other
            ("users/ada/age", "old", Self.ada),
            ("locked/inner", 1, Self.ada),                             // .write false below a grant: still granted
        ]
        for (path, value, auth) in refused.dropLast() {
            await #expect(throws: ServiceError.permissionDeniedByRules, "\(path) \(value)") {
                try await database.write(DatabaseWrite(.set(value), namespace: Self.ns, path: path, rulesAuth: auth))
            }
        }
        // A grant above cannot be taken back below.
        try await database.write(DatabaseWrite(.set(1), namespace: Self.ns, path: "locked/inner", rulesAuth: .null))
        #expect(try database.get(namespace: Self.ns, path: "users") == ["ada": ["name": "Ada L", "age": 36]])
        // A delete is not validated; a multi-path update must pass for every location.
        try await database.write(DatabaseWrite(.delete, namespace: Self.ns, path: "users/ada/age", rulesAuth: Self.ada))
        await #expect(throws: ServiceError.permissionDeniedByRules) {
            try await database.write(DatabaseWrite(.update(["ada/age": 40, "bob/name": "B"]),
                namespace: Self.ns, path: "users", rulesAuth: Self.ada))
        }
        #expect(try database.get(namespace: Self.ns, path: "users") == ["ada": ["name": "Ada L"]])
        try await database.write(DatabaseWrite(.update(["age": 40]),
            namespace: Self.ns, path: "users/ada", rulesAuth: Self.ada))
        // Administrators (no rules auth) are not checked.
        try await database.set(namespace: Self.ns, path: "users/bob", value: ["anything": true])
    }
}
