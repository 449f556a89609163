import Foundation

/// The files of a new functions package, as `functions init` writes them: one function of each
/// trigger kind, tests that use `CloudFunctionsTesting` and the in-process emulator, a
/// `.gitignore` and a short README.
struct Scaffold {
    /// Where the package finds swift-cloud-functions.
    enum Dependency {
        /// A checkout on this machine.
        case path(String)
        /// A published release.
        case url(String, from: String)

        var declaration: String {
            switch self {
            case .path(let path): ".package(name: \"swift-cloud-functions\", path: \(Self.literal(path)))"
            case .url(let url, let version): ".package(url: \(Self.literal(url)), from: \(Self.literal(version)))"
            }
        }

        /// A Swift string literal of `text`.
        static func literal(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
    }

    /// The `import` lines of the new package's files. They are built here, not written out in
    /// the templates, so that tools reading this target's sources do not take them for imports
    /// of the CLI itself.
    static func imports(_ modules: String...) -> String {
        modules.map { "import " + $0 }.joined(separator: "\n")
    }

    /// The package's name (its directory's).
    let package: String
    /// The executable target, also the `FunctionsApp` type.
    let target: String
    let dependency: Dependency

    /// Every file, by path relative to the package.
    var files: [(path: String, contents: String)] {
        [
            ("Package.swift", packageManifest),
            ("Sources/\(target)/\(target).swift", functions),
            ("Tests/\(target)Tests/\(target)Tests.swift", tests),
            (".gitignore", ".build/\n.swiftpm/\n.functions/\n.env.local\n.secret.local\n"),
            (".env", "# Values of the params the functions declare (Param.string(\"GREETING\"), ...), for every deploy.\n"
                + "# .env.<projectId> overrides them for one project, .env.local in the emulator only;\n"
                + "# secrets (Secret(\"NAME\")) go in .secret.local, which stays out of git.\nGREETING=Hello\n"),
            ("README.md", readme),
        ]
    }

    private var packageManifest: String {
        """
        // swift-tools-version: 6.1
        import PackageDescription

        let package = Package(
            name: \(Dependency.literal(package)),
            platforms: [.macOS(.v15)],
            products: [
                .executable(name: "\(target)", targets: ["\(target)"]),
            ],
            dependencies: [
                \(dependency.declaration),
            ],
            targets: [
                .executableTarget(
                    name: "\(target)",
                    // FunctionsWorker brings the authoring API and the built-in plugins with it.
                    dependencies: [.product(name: "FunctionsWorker", package: "swift-cloud-functions")]
                ),
                .testTarget(
                    name: "\(target)Tests",
                    dependencies: [
                        "\(target)",
                        .product(name: "CloudFunctions", package: "swift-cloud-functions"),
                        .product(name: "CloudFunctionsTesting", package: "swift-cloud-functions"),
                        .product(name: "FirebaseEmulator", package: "swift-cloud-functions"),
                    ]
                ),
            ]
        )

        """
    }

    private var functions: String {
        #"""
        \#(Self.imports("FunctionsWorker"))

        /// This package's functions, one of each kind. `functions deploy` builds the package and
        /// reads their triggers from its manifest; the same binary serves them in the emulator, on
        /// Cloud Run or on Knative.
        @main
        struct \#(target): FunctionsApp {
            /// A param: its value comes from .env (.env.<project> and, in the emulator, .env.local
            /// override it), else this default; a deploy refuses a value that does not fit.
            static let greeting = Param.string("GREETING", default: "Hello", description: "How hello greets")

            static func register(_ functions: inout FunctionRegistry) {
                functions.declare(greeting)

                // Remote Config: every publish or rollback sends the silent {"CONFIG_STATE": "STALE"}
                // ping to the apps subscribed to PUSH_RC, so their next fetch skips the cache.
                functions.use(PushConfig(topic: "PUSH_RC"))

                // Realtime Database: each new message gets an upper-cased copy.
                functions["uppercase"] = Database.ref("/messages/{id}").onCreate { message, context in
                    guard let text = message.child("text").val().stringValue, let id = context.params["id"] else { return }
                    try await context.database.ref("uppercase").child(id).set(.string(text.uppercased()))
                }

                // Authentication: a profile for every new user.
                functions["createProfile"] = Auth.user().onCreate { user, context in
                    try await context.database.ref("profiles").child(user.uid).set([
                        "email": user.email.map(JSONValue.string) ?? .null,
                    ])
                }

                // Analytics: count purchases.
                functions["countPurchase"] = Analytics.event("purchase").onLog { _, context in
                    try await context.database.ref("stats/purchases").transaction { count in
                        .number((count.numberValue ?? 0) + 1)
                    }
                }

                // HTTPS: GET /hello?name=Ada.
                functions["hello"] = Https.onRequest { request, response, context in
                    response.send("\(try context.value(greeting)), \(request.query("name") ?? "world")!")
                }

                // Callable: signed-in users add a message, which runs `uppercase`.
                functions["addMessage"] = Https.onCall { (request: CallableRequest<NewMessage>) in
                    let caller = try request.requireAuth()
                    guard !request.data.text.isEmpty else {
                        throw CallableError(.invalidArgument, "text must not be empty", details: ["field": "text"])
                    }
                    let message = try await request.context.database.ref("messages").push([
                        "text": .string(request.data.text), "uid": .string(caller.uid),
                    ])
                    return ["id": message.key ?? ""]
                }

                // Blocking: refuse sign-ups without an e-mail address; tag the others.
                functions["checkSignUp"] = Identity.beforeUserCreated { event in
                    guard let email = event.data.email, !email.isEmpty else {
                        throw CallableError(.permissionDenied, "sign up with an e-mail address")
                    }
                    return BeforeCreateResponse(customClaims: ["role": "member"])
                }
            }
        }

        /// What `addMessage` takes.
        struct NewMessage: Codable, Sendable {
            var text: String
        }

        """#
    }

    private var tests: String {
        #"""
        \#(Self.imports("CloudFunctions", "CloudFunctionsTesting", "FirebaseEmulator", "Testing"))
        @testable import \#(target)

        @Suite("\#(target)")
        struct \#(target)Tests {
            static var functions: FunctionRegistry {
                var functions = FunctionRegistry()
                \#(target).register(&functions)
                return functions
            }

            @Test("every function registers without problems")
            func registry() throws {
                try Self.functions.validate()
            }

            @Test("hello greets by name")
            func hello() async throws {
                let response = try await Self.functions.wrapRequest("hello")
                    .respond(to: HTTPSRequest(method: .get, target: "/?name=Ada"))
                #expect(String(decoding: try await response.collectBody(), as: UTF8.self) == "Hello, Ada!")
            }

            @Test("addMessage refuses callers who are not signed in, and empty text")
            func addMessageRefuses() async throws {
                let addMessage = try Self.functions.wrapRequest("addMessage")
                await #expect(throws: CallableError.self) { try await addMessage.call(NewMessage(text: "hi")) }
                let error = await #expect(throws: CallableError.self) {
                    try await addMessage.call(NewMessage(text: ""), auth: AuthData(uid: "u1"))
                }
                #expect(error?.code == .invalidArgument)
            }

            @Test("a message added through addMessage is upper-cased by uppercase, in the in-process emulator")
            func messageLoop() async throws {
                let emulator = try Emulator(project: "demo-project", directory: nil)
                try await emulator.withRunning {
                    try await emulator.deploy(Self.functions)
                    let added = try await Self.functions.wrapRequest("addMessage", admin: emulator.admin)
                        .call(NewMessage(text: "hi"), auth: AuthData(uid: "u1"), as: [String: String].self)
                    await emulator.waitUntilIdle()
                    let id = try #require(added["id"])
                    #expect(try await emulator.admin.database.get("uppercase/\(id)") == "HI")
                }
            }

            @Test("checkSignUp refuses a user without e-mail and tags the others")
            func checkSignUp() async throws {
                let checkSignUp = try Self.functions.wrapRequest("checkSignUp")
                await #expect(throws: CallableError.self) { try await checkSignUp.block(UserRecord(uid: "anonymous")) }
                let changes = try await checkSignUp.block(.example(email: "ada@example.com"))
                #expect(changes.user.customClaims?["role"] == "member")
            }

            @Test("a Remote Config publish pings PUSH_RC")
            func pushConfig() async throws {
                let runtime = try TestRuntime(Self.functions)
                await runtime.withRunning {
                    await runtime.deliver(.remoteConfigUpdated(.example(), project: runtime.project))
                    #expect(runtime.messaging.sentMessages.map(\.data) == [["CONFIG_STATE": "STALE"]])
                }
            }
        }

        """#
    }

    private var readme: String {
        """
        # \(package)

        Cloud functions in Swift, made with `functions init`: one of each kind in
        `Sources/\(target)/\(target).swift` (Remote Config, Realtime Database, Authentication and
        Analytics triggers; an HTTPS endpoint, a callable and a blocking sign-up check), and tests
        in `Tests/\(target)Tests` that call them directly and run them in an in-process emulator.

        ```sh
        swift test                                  # the tests
        functions emulators:start &                 # the local emulator (prints its URL)
        functions deploy --source .                 # build and deploy to it
        curl "http://127.0.0.1:4400/demo-project/us-central1/hello?name=Ada"
        functions deploy --source . --target cloud-run --dry-run   # what would go to Cloud Run
        ```

        """
    }
}
