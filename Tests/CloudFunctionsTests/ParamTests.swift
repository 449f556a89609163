import CloudFunctions
import CloudFunctionsTesting
import Foundation
import Testing

/// Params and secrets: what the manifest lists, how a deploy's text becomes a value, and what
/// a handler reads.
@Suite("Params and secrets")
struct ParamTests {
    static let welcome = Param.string("WELCOME", default: "Hello", description: "The greeting")
    static let maxScore = Param.int("MAX_SCORE")
    static let ratio = Param.double("RATIO", default: 0.5)
    static let enabled = Param.bool("ENABLED", default: false)
    static let regions = Param.list("REGIONS", default: ["eu"])
    static let color = Param.string("COLOR", choices: ["red", "green"])
    static let code = Param.string("CODE", pattern: "^[A-Z]{3}$", patternMessage: "three capitals")
    static let stripeKey = Secret("STRIPE_KEY")
    static let otherKey = Secret("OTHER_KEY")

    static func functions() -> FunctionRegistry {
        var functions = FunctionRegistry()
        functions.declare(welcome, maxScore, ratio, enabled, regions, color, code)
        functions["greet"] = Https.onRequest { _, response, context in
            let key = try context.value(stripeKey)
            response.send("\(try context.value(welcome)) \(try context.value(maxScore)) \(try context.value(ratio)) "
                + "\(try context.value(enabled)) \(try context.value(regions).joined(separator: "+")) \(key.count)")
        }.options(.secrets(stripeKey))
        functions["peek"] = Https.onRequest { _, response, context in
            response.send(try context.value(stripeKey))
        }
        functions["onConfig"] = RemoteConfig.onUpdate { _, context in
            _ = try context.value(otherKey)
            let welcome = try context.value(welcome)
            context.logger.info("\(welcome)")
        }.options(.secrets(otherKey))
        return functions
    }

    @Test("the manifest lists the declared params and the secrets, and each function's secrets")
    func manifest() throws {
        let manifest = Self.functions().manifest()
        #expect(manifest.params.map(\.name) == ["WELCOME", "MAX_SCORE", "RATIO", "ENABLED", "REGIONS", "COLOR", "CODE",
            "STRIPE_KEY", "OTHER_KEY"])
        let json = try JSONValue(parsing: manifest.json())
        let params = try #require(json["params"]?.arrayValue)
        #expect(params[0] == ["name": "WELCOME", "type": "string", "default": "Hello", "description": "The greeting"])
        #expect(params[1] == ["name": "MAX_SCORE", "type": "int"])
        #expect(params[2]["type"] == "float")
        #expect(params[3] == ["name": "ENABLED", "type": "boolean", "default": false])
        #expect(params[4] == ["name": "REGIONS", "type": "list", "default": ["eu"]])
        #expect(params[5]["input"] == ["select": ["options": [["value": "red"], ["value": "green"]]]])
        #expect(params[6]["input"] == ["text": ["validationRegex": "^[A-Z]{3}$", "validationErrorMessage": "three capitals"]])
        #expect(params[7] == ["name": "STRIPE_KEY", "type": "secret"])
        #expect(json["endpoints"]?["greet"]?["secretEnvironmentVariables"] == [["key": "STRIPE_KEY"]])
        #expect(json["endpoints"]?["peek"]?["secretEnvironmentVariables"] == nil)
        // Read back as written.
        let read = try FunctionsManifest(json: manifest.json())
        #expect(read.params == manifest.params)
        #expect(read.endpoints["greet"]?.functionOptions.secrets == ["STRIPE_KEY"])
    }

    @Test("a deploy's text becomes the value's environment form, or a one-line reason")
    func environmentValues() {
        func value(_ param: some ParamDeclaration, _ text: String) -> String {
            switch param.spec.environmentValue(of: text) {
            case .success(let value): value
            case .failure(let error): "error: \(error)"
            }
        }
        #expect(value(Self.maxScore, " 42") == "42")
        #expect(value(Self.maxScore, "4.2") == "error: MAX_SCORE must be a whole number, not '4.2'")
        #expect(value(Self.ratio, "2") == "2.0")
        #expect(value(Self.ratio, "nan") == "error: RATIO must be a number, not 'nan'")
        #expect(value(Self.enabled, "yes") == "true")
        #expect(value(Self.enabled, "0") == "false")
        #expect(value(Self.enabled, "maybe") == "error: ENABLED must be true or false, not 'maybe'")
        #expect(value(Self.regions, "eu,us") == #"["eu","us"]"#)
        #expect(value(Self.regions, "['eu', 'asia']") == #"["eu","asia"]"#)
        #expect(value(Self.regions, #"["it's", "a,b"]"#) == #"["it's","a,b"]"#)
        #expect(value(Self.regions, "[1]") == "error: REGIONS must be a list (a,b,c or a JSON array of strings), not '[1]'")
        #expect(value(Self.color, "green") == "green")
        #expect(value(Self.color, "blue") == "error: COLOR must be one of red, green, not 'blue'")
        #expect(value(Self.code, "ABC") == "ABC")
        #expect(value(Self.code, "abc") == "error: CODE 'abc' does not match ^[A-Z]{3}$: three capitals")
    }

    @Test("keys the platform reserves are refused, with the Firebase CLI's words")
    func reservedKeys() throws {
        #expect(ParamSpec.problem(withKey: "PORT") == "Key PORT is reserved for internal use.")
        #expect(ParamSpec.problem(withKey: "FIREBASE_TOKEN") == "Key FIREBASE_TOKEN starts with a reserved prefix (X_GOOGLE_ FIREBASE_ EXT_ KIT_)")
        #expect(ParamSpec.problem(withKey: "lower")?.hasPrefix("Key lower must start with an uppercase ASCII letter") == true)
        #expect(ParamSpec.problem(withKey: "_OK_1") == nil)
        #expect(ParamSpec.problem(withKey: "FUNCTIONS_DEBUG")?.hasPrefix("Key FUNCTIONS_DEBUG is reserved for this runtime") == true)
        #expect(ParamSpec.problem(withKey: "PUBSUB_EMULATOR_HOST")?.hasPrefix("Key PUBSUB_EMULATOR_HOST is reserved") == true)
        var functions = FunctionRegistry()
        functions.declare(Param.string("K_SERVICE"), Param.int("SIZE", default: 1), Param.int("SIZE", default: 2),
            Param.string("CODE", default: "x", pattern: "^[A-Z]$"))
        functions["f"] = Https.onRequest { _, _ in }.options(.secrets(Secret("bad-name")))
        let error = try #require(throws: RegistryError.self) { try functions.validate() }
        #expect(error.problems.map(\.message) == [
            "Key K_SERVICE is reserved for internal use.",
            "the param SIZE is declared twice, differently",
            "default: CODE 'x' does not match ^[A-Z]$",
            "secret: Key bad-name must start with an uppercase ASCII letter or underscore, and then consist of uppercase ASCII letters, digits, and underscores.",
        ])
    }

    @Test("a handler reads the deploy's values, else the defaults, and only the secrets it declared")
    func reading() async throws {
        let environment = ["MAX_SCORE": "7", "REGIONS": #"["a","b"]"#, "STRIPE_KEY": "sk_live_1234", "OTHER_KEY": "o"]
        let greet = try Self.functions().wrapRequest("greet", environment: environment)
        let answer = await greet.respond(to: HTTPSRequest())
        #expect(String(decoding: answer.body, as: UTF8.self) == "Hello 7 0.5 false a+b 12")
        // The secret is in the environment, but peek did not declare it.
        let peek = await (try Self.functions().wrapRequest("peek", environment: environment)).respond(to: HTTPSRequest())
        #expect(peek.status == .internalServerError)
        #expect(!String(decoding: peek.body, as: UTF8.self).contains("sk_live"))
        let values = ParamValues(environment: environment, secrets: [], functionName: "peek")
        let undeclared = #expect(throws: ParamError.self) { try values.value(Self.stripeKey) }
        #expect(undeclared?.message == "peek did not declare the secret STRIPE_KEY: add .options(.secrets(...)) with it")
        // Without a value or default, the read fails rather than giving an empty value.
        #expect(throws: ParamError.self) { try ParamValues(environment: [:]).value(Self.maxScore) }
        #expect(throws: ParamError.self) { try ParamValues(environment: ["MAX_SCORE": "x"]).value(Self.maxScore) }
        // An event function reads them too.
        let onConfig = try Self.functions().wrap("onConfig", environment: ["OTHER_KEY": "o", "WELCOME": "Hi"])
        try await onConfig(TemplateVersion(versionNumber: 1))
        let missing = try Self.functions().wrap("onConfig")
        await #expect(throws: ParamError.self) { try await missing(TemplateVersion(versionNumber: 1)) }
    }

    @Test("TestRuntime gives its handlers the environment a deploy would")
    func testRuntime() async throws {
        let topic = Param.string("TOPIC")
        var functions = FunctionRegistry()
        functions.declare(topic)
        functions["announce"] = RemoteConfig.onUpdate { _, context in
            _ = try await context.messaging.send(Message(.topic(try context.value(topic)), data: ["key": try context.value(Self.otherKey)]))
        }.options(.secrets(Self.otherKey))
        let runtime = try TestRuntime(functions, environment: ["TOPIC": "NEWS", "OTHER_KEY": "k"])
        try await runtime.withRunning {
            #expect(await runtime.deliver(.remoteConfigUpdated(.example(), project: runtime.project)) == ["announce"])
            #expect(runtime.messaging.sentMessages.map(\.target) == [.topic("NEWS")])
            #expect(runtime.messaging.sentMessages.first?.data == ["key": "k"])
        }
    }
}
