import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("Remote Config service: version streams")
struct RemoteConfigServiceRealtimeTests {
    typealias Fixture = RemoteConfigServiceFixture

    @Test("streams the current version when newer, then each published one of its namespace")
    func stream() async throws {
        let fixture = try Fixture()
        try await fixture.publish(count: 2)
        var iterator = fixture.service.versions(after: 1).makeAsyncIterator()
        #expect(await iterator.next() == 2)
        try await fixture.service.publish(Fixture.template(), namespace: .firebaseServer, ifMatch: "*")
        try await fixture.service.publish(Fixture.template(), project: "other", ifMatch: "*")
        try await fixture.publish(count: 1)
        #expect(await iterator.next() == 3)
        try await fixture.service.rollback(to: 1)
        #expect(await iterator.next() == 4)

        var upToDate = fixture.service.versions(after: 4).makeAsyncIterator()
        try await fixture.publish(count: 1)
        #expect(await upToDate.next() == 5)
        #expect(fixture.service.latestVersion() == 5)
    }

    @Test("keeps only the newest undelivered version for a slow consumer")
    func newestOnly() async throws {
        let fixture = try Fixture()
        var iterator = fixture.service.versions().makeAsyncIterator()
        try await fixture.publish(count: 3)
        #expect(await iterator.next() == 3)
    }

    @Test("ends streams on shutdown and ends new ones at once")
    func shutdown() async throws {
        let fixture = try Fixture()
        let stream = fixture.service.versions()
        #expect(fixture.service.versionStreamCount == 1)
        fixture.service.shutdown()
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        #expect(fixture.service.versionStreamCount == 0)
        var late = fixture.service.versions().makeAsyncIterator()
        #expect(await late.next() == nil)
        await #expect(try fixture.publish(count: 1)?.template.versionNumber == 1)
    }

    @Test("forgets a stream when its consumer stops")
    func cleanup() async throws {
        let fixture = try Fixture()
        let service = fixture.service
        let consumer = Task {
            for await version in service.versions() where version >= 2 { return version }
            return Int64(-1)
        }
        while service.versionStreamCount == 0 { await Task.yield() }
        try await fixture.publish(count: 2)
        #expect(await consumer.value == 2)
        #expect(service.versionStreamCount == 0)

        let cancelled = Task { for await _ in service.versions() {} }
        while service.versionStreamCount == 0 { await Task.yield() }
        cancelled.cancel()
        await cancelled.value
        #expect(service.versionStreamCount == 0)
    }
}
