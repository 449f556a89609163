import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Synchronization

/// A Remote Config service on an in-memory (or on-disk) store with a manual clock, recording what
/// it hands to `emit`.
struct RemoteConfigServiceFixture {
    /// What the service emitted after its commits, in order.
    final class Emitted: Sendable {
        private let entries = Mutex<[OutboxEntry]>([])
        func append(_ new: [OutboxEntry]) { entries.withLock { $0 += new } }
        var all: [OutboxEntry] { entries.withLock { $0 } }
        var events: [CloudEvent] { all.map(\.event) }
    }

    static let start = Date(timeIntervalSince1970: 1_735_787_045.678)

    let store: EmulatorStore
    let clock: ManualClock
    let emitted = Emitted()
    let service: RemoteConfigService

    init(directory: URL? = nil, clock: ManualClock = ManualClock(now: start), fetchLimit: RemoteConfigFetchLimit? = nil)
        throws
    {
        store = try EmulatorStore(directory: directory)
        self.clock = clock
        let emitted = emitted
        service = try RemoteConfigService(
            store: store, project: "demo-project", clock: clock, emit: { emitted.append($0) }, fetchLimit: fetchLimit)
    }

    /// A small valid template whose `welcome` default is `text`.
    static func template(_ text: String = "hello", description: String? = nil) -> RemoteConfigTemplate {
        RemoteConfigTemplate(
            conditions: [RemoteConfigCondition(name: "ios", expression: "device.os == 'ios'")],
            parameters: [
                "welcome": RemoteConfigParameter(
                    defaultValue: .value(text), conditionalValues: ["ios": .value(text + " iOS")]),
                "flag": RemoteConfigParameter(defaultValue: .value("true"), valueType: .boolean),
            ],
            version: description.map { TemplateVersion(versionNumber: 0, description: $0) }
        )
    }

    /// Publishes `count` templates over the current one, one second apart; returns the last answer.
    @discardableResult
    func publish(count: Int, advancing: Duration = .seconds(1)) async throws -> RemoteConfigTemplateResponse? {
        var last: RemoteConfigTemplateResponse?
        for index in 0..<count {
            clock.advance(by: advancing)
            last = try await service.publish(Self.template("v\(index)"), ifMatch: "*")
        }
        return last
    }

    /// A temporary directory that the caller removes.
    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("rc-service-tests-\(UUID().uuidString)")
    }
}
