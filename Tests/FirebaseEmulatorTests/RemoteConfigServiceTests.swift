import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("Remote Config service: publish, ETags and events")
struct RemoteConfigServiceTests {
    typealias Fixture = RemoteConfigServiceFixture

    @Test("answers a never-published template as version 0 with an ETag")
    func neverPublished() throws {
        let fixture = try Fixture()
        for namespace in RemoteConfigNamespace.managed {
            let answer = try fixture.service.template(namespace: namespace)
            #expect(answer.template == .empty)
            #expect(answer.template.versionNumber == 0)
            #expect(answer.etag == "etag-demo-project-0")
        }
        #expect(fixture.service.latestVersion() == 0)
    }

    @Test("rejects a publish without If-Match, with a foreign ETag or with a stale one")
    func versionMismatch() async throws {
        let fixture = try Fixture()
        let template = Fixture.template()
        let cases: [(String?, String)] = [
            (nil, "[VERSION_MISMATCH]: Expected version 0, found no If-Match header. "
                + "Send the ETag of the current template, or '*' to force the update"),
            ("", "[VERSION_MISMATCH]: Expected version 0, found no If-Match header. "
                + "Send the ETag of the current template, or '*' to force the update"),
            ("etag-demo-project-3", "[VERSION_MISMATCH]: Expected version 0, found 3"),
            ("abc", "[VERSION_MISMATCH]: Expected version 0, found ETag 'abc', "
                + "which is not an ETag of project demo-project"),
        ]
        for (ifMatch, message) in cases {
            await #expect(throws: ServiceError(.preconditionFailed, message)) {
                try await fixture.service.publish(template, ifMatch: ifMatch)
            }
        }
        let first = try await fixture.service.publish(template, ifMatch: "etag-demo-project-0")
        #expect(first.etag == "etag-demo-project-1")
        await #expect(throws: ServiceError(.preconditionFailed, "[VERSION_MISMATCH]: Expected version 1, found 0")) {
            try await fixture.service.publish(template, ifMatch: "etag-demo-project-0")
        }
        #expect(fixture.service.latestVersion() == 1)
        #expect(fixture.emitted.events.count == 1)
    }

    @Test("publishes incrementally with the current ETag (quoted too) and forces with *")
    func updateTypes() async throws {
        let fixture = try Fixture()
        let forced = try await fixture.service.publish(Fixture.template("a"), ifMatch: "*")
        #expect(forced.template.version?.updateType == .forcedUpdate)
        let matched = try await fixture.service.publish(Fixture.template("b"), ifMatch: forced.etag)
        #expect(matched.template.version?.updateType == .incrementalUpdate)
        let quoted = try await fixture.service.publish(Fixture.template("c"), ifMatch: "\"\(matched.etag)\"")
        #expect(quoted.template.version?.updateType == .incrementalUpdate)
        #expect(quoted.template.versionNumber == 3)
        #expect(try fixture.service.template().etag == "etag-demo-project-3")
    }

    @Test("fills in the version metadata and keeps only the description of the request's version")
    func metadata() async throws {
        let fixture = try Fixture()
        var template = Fixture.template(description: "first")
        template.version?.versionNumber = 99
        template.version?.updateType = .rollback
        template.version?.rollbackSource = 4
        let answer = try await fixture.service.publish(template, ifMatch: "*")
        let version = try #require(answer.template.version)
        #expect(version.versionNumber == 1)
        #expect(version.updateTime == Date(timeIntervalSince1970: 1_735_787_045.678))
        #expect(version.updateUser == RemoteConfigUser(name: "Emulator", email: "emulator@example.com", imageUrl: ""))
        #expect(version.updateOrigin == .restAPI)
        #expect(version.updateType == .forcedUpdate)
        #expect(version.description == "first")
        #expect(version.rollbackSource == nil)
        #expect(answer.template.parameters == template.parameters)
        #expect(answer.template.conditions == template.conditions)

        fixture.clock.advance(by: .milliseconds(1500))
        let custom = try await fixture.service.publish(
            Fixture.template(), ifMatch: answer.etag, user: RemoteConfigUser(email: "ada@example.com"),
            origin: .adminSDKNode)
        #expect(
            custom.template.version?.updateUser == RemoteConfigUser(name: "", email: "ada@example.com", imageUrl: ""))
        #expect(custom.template.version?.updateOrigin == .adminSDKNode)
        #expect(custom.template.version?.description == nil)
        #expect(custom.template.version?.updateTime == Date(timeIntervalSince1970: 1_735_787_047.178))
        let json = try #require(String(data: try JSONEncoder().encode(custom.template.version), encoding: .utf8))
        #expect(json.contains("\"updateTime\":\"2025-01-02T03:04:07.178Z\""))
        #expect(json.contains("\"versionNumber\":\"2\""))
    }

    @Test("rejects an invalid template with the value layer's message and stores nothing")
    func validation() async throws {
        let fixture = try Fixture()
        try await fixture.service.publish(Fixture.template("kept"), ifMatch: "*")
        var bad = Fixture.template()
        bad.parameters["welcome"]?.conditionalValues["android"] = .value("x")
        await #expect(throws: ServiceError(.invalidArgument, 
            "[VALIDATION_ERROR]: [android] are not valid condition names. "
                + "Parameter 'welcome' has conditional values for conditions that do not exist")) {
            try await fixture.service.publish(bad, ifMatch: "*")
        }
        let long = Fixture.template(description: String(repeating: "d", count: 1025))
        let tooLong = ServiceError(.invalidArgument, "[VALIDATION_ERROR]: Version description exceeds 1024 characters")
        await #expect(throws: tooLong) {
            try await fixture.service.publish(long, ifMatch: "*", validateOnly: true)
        }
        #expect(try await fixture.service.publish(Fixture.template(description: String(repeating: "d", count: 1024)),
            ifMatch: "*", validateOnly: true).etag == "etag-demo-project-1-0")
        #expect(try fixture.service.template().template.parameters["welcome"]?.defaultValue == .value("kept"))
        #expect(fixture.emitted.events.count == 1)
    }

    @Test("validates only: checks If-Match, stores and emits nothing, suffixes the ETag with -0")
    func validateOnly() async throws {
        let fixture = try Fixture()
        let template = Fixture.template(description: "try")
        let answer = try await fixture.service.publish(template, ifMatch: "etag-demo-project-0", validateOnly: true)
        #expect(answer.etag == "etag-demo-project-0-0")
        #expect(answer.template == template)
        await #expect(throws: ServiceError(.preconditionFailed, "[VERSION_MISMATCH]: Expected version 0, found 5")) {
            try await fixture.service.publish(template, ifMatch: "etag-demo-project-5", validateOnly: true)
        }
        #expect(fixture.service.latestVersion() == 0)
        #expect(try fixture.service.listVersions().versions.isEmpty)
        #expect(fixture.emitted.all.isEmpty)
        #expect(try fixture.store.pendingEvents().isEmpty)
    }

    @Test("emits remoteConfig.v1.updated in the publish transaction with the version as data, in the publish's trace")
    func events() async throws {
        let fixture = try Fixture()
        let request = TraceParent.newTrace()
        let published = try await TraceScope.$current.withValue(request) {
            try await fixture.service.publish(
                Fixture.template(description: "d"), ifMatch: "*",
                user: RemoteConfigUser(name: "Ada", email: "a@b.com", imageUrl: "https://example.com/a.png"),
                origin: .console)
        }
        let event = try #require(fixture.emitted.events.first)
        #expect(fixture.emitted.events.count == 1)
        #expect(event.type == "google.firebase.remoteconfig.remoteConfig.v1.updated")
        #expect(event.source == "//firebaseremoteconfig.googleapis.com/projects/demo-project")
        #expect(event.subject == nil)
        // The CloudEvents distributed-tracing extension names the span of the write, and nothing else is added.
        #expect(event.extensions.keys.sorted() == ["traceparent"])
        #expect(event.traceParent == request)
        #expect(event.time == published.template.version?.updateTime)
        #expect(event.dataContentType == "application/json")
        let data = try JSONValue(parsing: try #require(event.data))
        #expect(
            data == [
                "versionNumber": "1", "updateTime": "2025-01-02T03:04:05.678Z",
                "updateUser": ["name": "Ada", "email": "a@b.com", "imageUrl": "https://example.com/a.png"],
                "description": "d", "updateOrigin": "CONSOLE", "updateType": "FORCED_UPDATE",
            ])
        let headers = event.binaryHTTPMessage().headers.map { "\($0.name): \($0.value)" }
        #expect(headers.contains("ce-time: 2025-01-02T03:04:05.678Z"))
        // Committed to the outbox with the version.
        #expect(try fixture.store.pendingEvents().map(\.event) == [event])
    }

    @Test("emits nothing for failed publishes and for the server namespace")
    func noEvents() async throws {
        let fixture = try Fixture()
        _ = try? await fixture.service.publish(Fixture.template(), ifMatch: nil)
        _ = try? await fixture.service.publish(RemoteConfigTemplate(conditions: [.init(name: "x", expression: "(")]),
            ifMatch: "*")
        let server = try await fixture.service.publish(Fixture.template(), namespace: .firebaseServer, ifMatch: "*")
        #expect(server.template.versionNumber == 1)
        #expect(fixture.service.latestVersion(namespace: .firebaseServer) == 1)
        #expect(fixture.service.latestVersion() == 0)
        #expect(fixture.emitted.all.isEmpty)
        #expect(try fixture.store.pendingEvents().isEmpty)
    }

    @Test("rejects namespaces that hold no template")
    func unknownNamespace() async throws {
        let fixture = try Fixture()
        let error = ServiceError(.invalidArgument, 
            "Namespace 'fireperf' does not hold a template: use 'firebase' or 'firebase-server'")
        #expect(throws: error) { try fixture.service.template(namespace: .init(rawValue: "fireperf")) }
        await #expect(throws: error) {
            try await fixture.service.publish(Fixture.template(), namespace: .init(rawValue: "fireperf"), ifMatch: "*")
        }
    }

    @Test("keeps projects apart")
    func projects() async throws {
        let fixture = try Fixture()
        try await fixture.service.publish(Fixture.template("a"), ifMatch: "*")
        let other = try await fixture.service.publish(Fixture.template("b"), project: "other", ifMatch: "etag-other-0")
        #expect(other.etag == "etag-other-1")
        #expect(fixture.emitted.events.map(\.source) == [
            "//firebaseremoteconfig.googleapis.com/projects/demo-project",
            "//firebaseremoteconfig.googleapis.com/projects/other",
        ])
        let otherTemplate = try fixture.service.template(project: "other").template
        #expect(otherTemplate.parameters["welcome"]?.defaultValue == .value("b"))
    }
}
