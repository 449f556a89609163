import CloudFunctions
import Foundation
import FunctionsBuiltins
import Testing

@Suite("Function registry, plugins and manifest")
struct RegistryTests {
    struct TwoFunctions: FunctionsPlugin {
        func register(_ functions: inout FunctionRegistry) {
            functions["first"] = RemoteConfig.onUpdate { _, _ in }
            functions["second"] = Auth.user().onDelete { _, _ in }
        }
    }

    @Test("keeps functions in registration order, including a plugin's")
    func order() throws {
        var functions = FunctionRegistry()
        functions["a"] = RemoteConfig.onUpdate { _, _ in }
        functions.use(TwoFunctions())
        try functions.register("z-last_1", Auth.user().onCreate { _, _ in })
        try functions.validate()
        #expect(functions.names == ["a", "first", "second", "z-last_1"])
    }

    @Test("rejects a duplicate name with a clear error and keeps the first function")
    func duplicates() throws {
        var functions = FunctionRegistry()
        functions.use(PushConfig())
        functions.use(PushConfig(topic: "OTHER"))
        #expect {
            try functions.validate()
        } throws: { error in
            let problem = (error as? RegistryError)?.problems.first
            return problem?.code == .duplicateName
                && "\(error)" == "pushConfig: a function named 'pushConfig' is already registered"
        }
        #expect(functions.names == ["pushConfig"])
        #expect(throws: RegistryError.self) { try functions.register("pushConfig", RemoteConfig.onUpdate { _, _ in }) }
    }

    @Test("rejects invalid names", arguments: ["", "1abc", "has space", "dot.name", String(repeating: "a", count: 64)])
    func invalidNames(name: String) {
        var functions = FunctionRegistry()
        #expect {
            try functions.register(name, RemoteConfig.onUpdate { _, _ in })
        } throws: { ($0 as? RegistryError)?.problems.first?.code == .invalidName }
    }

    @Test("rejects unusable options")
    func invalidOptions() {
        var functions = FunctionRegistry()
        functions["a"] = RemoteConfig.onUpdate { _, _ in }.options(.timeout(.seconds(541)))
        functions["b"] = Database.ref("x").options(.concurrency(0)).onWrite { _, _ in }
        functions["c"] = Auth.user().options(.backoff(BackoffPolicy(initial: .seconds(10), maximum: .seconds(1))))
            .onCreate { _, _ in }
        #expect {
            try functions.validate()
        } throws: { ($0 as? RegistryError)?.problems.map(\.function) == ["a", "b", "c"] }
    }

    @Test("selects a subset for deploy --only")
    func only() throws {
        var functions = FunctionRegistry()
        functions.use(TwoFunctions())
        #expect(try functions.only(["second"]).names == ["second"])
        #expect(throws: RegistryError.self) { try functions.only(["missing"]) }
    }

    @Test("writes a v1alpha1 manifest with one event trigger per endpoint")
    func writesManifest() throws {
        var functions = FunctionRegistry()
        functions.use(PushConfig())
        functions["onUserWritten"] = Database.ref("/users/{uid}").options(.retry(true), .timeout(.seconds(30)))
            .onWrite { _, _ in }
        functions["inOneDB"] = Database.instance("main").ref("scores/{id}").onCreate { _, _ in }
        let manifest = functions.manifest()
        let json = try JSONValue(parsing: manifest.json())
        #expect(json["specVersion"] == "v1alpha1")
        let push = try #require(json["endpoints"]?["pushConfig"])
        #expect(push["entryPoint"] == "pushConfig")
        #expect(push["eventTrigger"] == [
            "eventType": "google.firebase.remoteconfig.remoteConfig.v1.updated", "eventFilters": [:], "retry": false,
        ])
        #expect(push["minInstances"] == .null)
        let users = try #require(json["endpoints"]?["onUserWritten"])
        #expect(users["timeoutSeconds"] == 30)
        #expect(users["eventTrigger"]?["eventFilterPathPatterns"] == ["ref": "users/{uid}", "instance": "*"])
        #expect(users["eventTrigger"]?["retry"] == true)
        let one = try #require(json["endpoints"]?["inOneDB"])
        #expect(one["eventTrigger"]?["eventFilters"] == ["instance": "main"])
        #expect(one["eventTrigger"]?["eventType"] == "google.firebase.database.ref.v1.created")

        let decoded = try FunctionsManifest(json: manifest.json())
        #expect(decoded == manifest)
        var expectedOptions = try #require(functions["onUserWritten"]?.options)
        expectedOptions.region = "us-central1"
        #expect(decoded.endpoints["onUserWritten"]?.functionOptions == expectedOptions)
        #expect(try decoded.endpoints["onUserWritten"]?.functionTrigger() == functions["onUserWritten"]?.trigger)
    }

    @Test("a function's whole backoff reaches the manifest and comes back from it")
    func backoffInManifest() throws {
        var functions = FunctionRegistry()
        let backoff = BackoffPolicy(initial: .seconds(2), maximum: .seconds(30), multiplier: 3, jitter: 0)
        functions["steady"] = Database.ref("/jobs/{id}").options(.retry(true), .backoff(backoff)).onCreate { _, _ in }
        let json = try JSONValue(parsing: functions.manifest().json())
        let policy = try #require(json["endpoints"]?["steady"]?["deliveryPolicy"])
        #expect(policy["backoffMultiplier"] == 3 && policy["backoffJitter"] == 0)
        let decoded = try FunctionsManifest(json: functions.manifest().json())
        #expect(decoded.endpoints["steady"]?.functionOptions.backoff == backoff)
        // A manifest written before these keys means the defaults.
        var older = try #require(decoded.endpoints["steady"])
        older.deliveryPolicy?.backoffMultiplier = nil
        older.deliveryPolicy?.backoffJitter = nil
        #expect(older.functionOptions.backoff == BackoffPolicy(initial: .seconds(2), maximum: .seconds(30)))
    }

    @Test("the Admin services a function declares reach the manifest; undeclared, the key is left out")
    func adminServicesInManifest() throws {
        var functions = FunctionRegistry()
        functions.use(PushConfig())
        functions["quiet"] = Https.onRequest { _, _ in }.options(.uses())
        functions["plain"] = RemoteConfig.onUpdate { _, _ in }
        let json = try JSONValue(parsing: functions.manifest().json())
        #expect(json["endpoints"]?["pushConfig"]?["adminServices"] == ["messaging"])
        #expect(json["endpoints"]?["quiet"]?["adminServices"] == [])
        #expect(json["endpoints"]?["plain"]?["adminServices"] == nil)
        let decoded = try FunctionsManifest(json: functions.manifest().json())
        #expect(decoded.endpoints["pushConfig"]?.functionOptions.adminServices == [.messaging])
        #expect(decoded.endpoints["quiet"]?.functionOptions.adminServices == [])
        #expect(decoded.endpoints["plain"]?.functionOptions.adminServices == nil)
    }

    @Test("reads the Node SDK's manifest, with nulls and 1st-gen event types")
    func readsSDKManifest() throws {
        let manifest = try FunctionsManifest(json: Fixture.data("manifest.v1alpha1.composed.json"))
        #expect(manifest.endpoints.count == 5)
        let push = try #require(manifest.endpoints["pushConfig"])
        #expect(push.timeoutSeconds == nil)
        #expect(try push.trigger() == EventTrigger(eventType: FirebaseEventType.remoteConfigUpdated))
        let welcome = try #require(manifest.endpoints["welcomeUser"])
        #expect(welcome.functionOptions.retry)
        #expect(welcome.functionOptions.timeout == .seconds(90))
        #expect(try welcome.trigger()?.eventType == FirebaseEventType.authUserCreated)
        let written = try #require(try manifest.endpoints["onUserWritten"]?.trigger())
        #expect(written.pathPatterns["ref"]?.text == "users/{uid}")
        #expect(manifest.endpoints["tick"]?.otherTriggers["scheduleTrigger"]?["schedule"] == "every 5 minutes")
        #expect(manifest.endpoints["api"]?.otherTriggers.keys.first == "httpsTrigger")
    }

    @Test(
        "rejects malformed manifests",
        arguments: [
            #"{"specVersion":"v1","endpoints":{}}"#,
            #"{"specVersion":"v1alpha1"}"#,
            #"{"specVersion":"v1alpha1","endpoints":{"f":{"entryPoint":"f"}}}"#,
            #"{"specVersion":"v1alpha1","endpoints":{"f":{"httpsTrigger":{},"callableTrigger":{}}}}"#,
            #"{"specVersion":"v1alpha1","endpoints":{"f":{"eventTrigger":{"eventFilters":{},"retry":false}}}}"#,
        ]
    )
    func rejectsMalformedManifests(json: String) {
        #expect(throws: DecodingError.self) { try FunctionsManifest(json: Data(json.utf8)) }
    }
}
