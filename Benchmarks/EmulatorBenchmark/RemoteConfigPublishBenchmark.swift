import CloudFunctions
import FirebaseEmulator
import Foundation

/// Publishes a 50-parameter template 2,000 times through ``RemoteConfigService`` (validation, the
/// version row, retention pruning and the outbox event, one transaction each), in memory and on
/// disk, and prints publishes per second for both.
enum RemoteConfigPublishBenchmark {
    static let publishes = 2_000
    static let parameterCount = 50

    static func run() async throws {
        try await measure(label: "in-memory store", directory: nil)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("rc-publish-benchmark-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await measure(label: "on-disk store", directory: directory)
    }

    static func measure(label: String, directory: URL?) async throws {
        // Nothing is deployed: each publish's event stays in the outbox, committed with its version.
        let service = try Emulator(project: "bench", directory: directory).remoteConfig
        var etag = try service.template().etag
        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<publishes {
            etag = try await service.publish(template(revision: index), ifMatch: etag).etag
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let rate = Double(publishes) / seconds
        // Every version still stored, page by page (a page holds at most 300).
        var kept = 0
        var token: String?
        repeat {
            let page = try service.listVersions(pageSize: 100, pageToken: token)
            kept += page.versions.count
            token = page.nextPageToken
        } while token != nil
        print(
            "\(label): \(publishes) publishes of \(parameterCount) parameters in "
                + String(format: "%.2f s = %.0f publishes/s (%d versions kept)", seconds, rate, kept))
    }

    static func template(revision: Int) -> RemoteConfigTemplate {
        var parameters: [String: RemoteConfigParameter] = [:]
        for index in 0..<parameterCount {
            parameters["param_\(index)"] = RemoteConfigParameter(
                defaultValue: .value("value \(index) of revision \(revision)"),
                conditionalValues: index % 5 == 0 ? ["ios": .value("ios \(index)")] : [:],
                valueType: .string)
        }
        return RemoteConfigTemplate(
            conditions: [RemoteConfigCondition(name: "ios", expression: "device.os == 'ios'")],
            parameters: parameters,
            version: TemplateVersion(versionNumber: 0, description: "revision \(revision)"))
    }
}
