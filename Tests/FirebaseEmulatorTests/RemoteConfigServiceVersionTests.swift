import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("Remote Config service: versions, rollback, retention and persistence")
struct RemoteConfigServiceVersionTests {
    typealias Fixture = RemoteConfigServiceFixture

    @Test("gets a historic version with its own ETag, and NOT_FOUND for unknown ones")
    func historic() async throws {
        let fixture = try Fixture()
        let first = try await fixture.service.publish(Fixture.template("one", description: "1st"), ifMatch: "*")
        try await fixture.service.publish(Fixture.template("two"), ifMatch: first.etag)
        let old = try fixture.service.template(version: 1)
        #expect(old == first)
        #expect(old.etag == "etag-demo-project-1")
        #expect(try fixture.service.template(version: 2).template.parameters["welcome"]?.defaultValue == .value("two"))
        #expect(throws: ServiceError(.notFound, 
            "[VERSION_NOT_FOUND]: Version 3 of the Remote Config template was not found: it was never published "
                + "or is older than the last 300 versions")) {
            try fixture.service.template(version: 3)
        }
        #expect(
            throws: ServiceError(.invalidArgument, "[VALIDATION_ERROR]: versionNumber must be greater than 0, got 0")
        ) {
            try fixture.service.template(version: 0)
        }
        #expect(throws: ServiceError.self) { try fixture.service.template(version: 1, namespace: .firebaseServer) }
    }

    @Test("lists versions newest first and pages through all of them with tokens")
    func paging() async throws {
        let fixture = try Fixture()
        try await fixture.publish(count: 7)
        #expect(try fixture.service.listVersions().versions.compactMap(\.versionNumber) == [7, 6, 5, 4, 3, 2, 1])
        var seen: [Int64] = []
        var token: String?
        var pages = 0
        repeat {
            let page = try fixture.service.listVersions(pageSize: 3, pageToken: token)
            seen += page.versions.compactMap(\.versionNumber)
            token = page.nextPageToken
            pages += 1
        } while token != nil
        #expect(seen == [7, 6, 5, 4, 3, 2, 1])
        #expect(pages == 3)
        let exact = try fixture.service.listVersions(pageSize: 7)
        #expect(exact.versions.count == 7)
        #expect(exact.nextPageToken == nil)
        let first = try #require(try fixture.service.listVersions().versions.first)
        #expect(first.updateType == .forcedUpdate)
        #expect(first.updateUser?.email == "emulator@example.com")
    }

    @Test("filters by endVersionNumber (inclusive), startTime (inclusive) and endTime (exclusive)")
    func filters() async throws {
        let fixture = try Fixture()
        try await fixture.publish(count: 6)  // version n at start + n seconds
        let time = { (n: Double) in Fixture.start.addingTimeInterval(n) }
        func numbers(_ list: RemoteConfigVersionList) -> [Int64] { list.versions.compactMap(\.versionNumber) }
        #expect(numbers(try fixture.service.listVersions(endVersionNumber: 4)) == [4, 3, 2, 1])
        #expect(numbers(try fixture.service.listVersions(endVersionNumber: 99)) == [6, 5, 4, 3, 2, 1])
        #expect(numbers(try fixture.service.listVersions(startTime: time(2))) == [6, 5, 4, 3, 2])
        #expect(numbers(try fixture.service.listVersions(endTime: time(5))) == [4, 3, 2, 1])
        #expect(numbers(try fixture.service.listVersions(startTime: time(2), endTime: time(5))) == [4, 3, 2])
        let page = try fixture.service.listVersions(pageSize: 2, endVersionNumber: 5, startTime: time(1.5))
        #expect(numbers(page) == [5, 4])
        let rest = try fixture.service.listVersions(
            pageSize: 2, pageToken: page.nextPageToken, endVersionNumber: 5, startTime: time(1.5))
        #expect(numbers(rest) == [3, 2])
        #expect(rest.nextPageToken == nil)
    }

    @Test("rejects bad listing arguments", arguments: [0, -1, 301])
    func badPageSize(_ size: Int) async throws {
        let fixture = try Fixture()
        #expect(throws: ServiceError(.invalidArgument, "pageSize must be a number between 1 and 300 (inclusive).")) {
            try fixture.service.listVersions(pageSize: size)
        }
    }

    @Test("rejects a foreign page token and a non-positive endVersionNumber")
    func badArguments() async throws {
        let fixture = try Fixture()
        #expect(throws: ServiceError(.invalidArgument, "pageToken is not a token this API returned: 'nope!'")) {
            try fixture.service.listVersions(pageToken: "nope!")
        }
        #expect(throws: ServiceError(.invalidArgument, 
            "[VALIDATION_ERROR]: endVersionNumber must be greater than 0, got 0")) {
            try fixture.service.listVersions(endVersionNumber: 0)
        }
        #expect(try fixture.service.listVersions(pageToken: "").versions.isEmpty)
    }

    @Test("rolls back by publishing a new version with the old content")
    func rollback() async throws {
        let fixture = try Fixture()
        let one = try await fixture.service.publish(Fixture.template("one", description: "first"), ifMatch: "*")
        try await fixture.service.publish(Fixture.template("two"), ifMatch: one.etag)
        fixture.clock.advance(by: .seconds(10))
        let rolled = try await fixture.service.rollback(to: 1, user: RemoteConfigUser(name: "Bo", email: "bo@example.com"))
        #expect(rolled.etag == "etag-demo-project-3")
        #expect(rolled.template.parameters == one.template.parameters)
        #expect(rolled.template.conditions == one.template.conditions)
        let version = try #require(rolled.template.version)
        #expect(version.versionNumber == 3)
        #expect(version.updateType == .rollback)
        #expect(version.rollbackSource == 1)
        #expect(version.description == "first")
        #expect(version.updateOrigin == .restAPI)
        #expect(version.updateUser == RemoteConfigUser(name: "Bo", email: "bo@example.com", imageUrl: ""))
        #expect(version.updateTime == Fixture.start.addingTimeInterval(10))
        #expect(try fixture.service.template() == rolled)
        #expect(try await fixture.service.rollback(to: 3).template.version?.rollbackSource == 3)

        let event = try #require(fixture.emitted.events.dropLast().last)
        let data = try JSONValue(parsing: try #require(event.data))
        #expect(data["updateType"] == "ROLLBACK")
        #expect(data["rollbackSource"] == "1")
        #expect(data["versionNumber"] == "3")
        #expect(fixture.emitted.events.count == 4)
    }

    @Test("rejects rolling back to unknown versions and emits nothing")
    func badRollback() async throws {
        let fixture = try Fixture()
        try await fixture.service.publish(Fixture.template(), ifMatch: "*")
        await #expect(throws: ServiceError(.notFound, 
            "[VERSION_NOT_FOUND]: Version 2 of the Remote Config template was not found: it was never published "
                + "or is older than the last 300 versions")) {
            try await fixture.service.rollback(to: 2)
        }
        await #expect(
            throws: ServiceError(.invalidArgument, "[VALIDATION_ERROR]: versionNumber must be greater than 0, got -1")
        ) {
            try await fixture.service.rollback(to: -1)
        }
        #expect(fixture.service.latestVersion() == 1)
        #expect(fixture.emitted.events.count == 1)
    }

    @Test("keeps only the last 300 versions")
    func retention() async throws {
        let fixture = try Fixture()
        try await fixture.publish(count: 305)
        let listed = try fixture.service.listVersions().versions.compactMap(\.versionNumber)
        #expect(listed.count == 300)
        #expect(listed.first == 305)
        #expect(listed.last == 6)
        #expect(throws: ServiceError.self) { try fixture.service.template(version: 5) }
        await #expect(throws: ServiceError.self) { try await fixture.service.rollback(to: 5) }
        #expect(try fixture.service.template(version: 6).template.versionNumber == 6)
        #expect(fixture.emitted.events.count == 305)
    }

    @Test("keeps versions, the current template and pending events across reopening the store")
    func persistence() async throws {
        let directory = Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let written: RemoteConfigTemplateResponse
        do {
            let fixture = try Fixture(directory: directory)
            try await fixture.publish(count: 2)
            try await fixture.service.publish(Fixture.template("server"), namespace: .firebaseServer, ifMatch: "*")
            written = try await fixture.service.rollback(to: 1)
        }
        let reopened = try Fixture(directory: directory)
        #expect(try reopened.service.template() == written)
        #expect(reopened.service.latestVersion() == 3)
        #expect(reopened.service.latestVersion(namespace: .firebaseServer) == 1)
        #expect(try reopened.service.listVersions().versions.compactMap(\.versionNumber) == [3, 2, 1])
        #expect(try reopened.service.template(version: 1).template.parameters["welcome"]?.defaultValue == .value("v0"))
        #expect(try reopened.store.pendingEvents().count == 3)
        let fetched = try reopened.service.fetch(instance: RemoteConfigAppInstance(platform: "ios"))
        #expect(fetched.entries["welcome"] == "v0 iOS")
        let next = try await reopened.service.publish(Fixture.template(), ifMatch: written.etag)
        #expect(next.template.versionNumber == 4)
    }
}
