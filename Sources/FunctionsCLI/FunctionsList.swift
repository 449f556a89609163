import ArgumentParser
import CloudFunctions
import Foundation

/// `functions functions:list`: what is deployed, each function's trigger, and its instances.
struct FunctionsList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "functions:list",
        abstract: "List the deployed functions, their triggers and their instances (worker processes)."
    )

    @OptionGroup var target: EmulatorOptions

    @Flag(help: "Print the emulator's JSON answer.")
    var json = false

    func run() async throws {
        let api = try target.client()
        let answer = try await api.send("GET", api.emulatorPath("/functions")).json()
        if json { return printJSON(answer) }
        let endpoints = answer["endpoints"]?.objectValue ?? [:]
        guard !endpoints.isEmpty else {
            print("no functions deployed to \(api.base.absoluteString) (project \(api.project))")
            return
        }
        for (name, endpoint) in endpoints.sorted(by: { $0.key < $1.key }) {
            print("\(name)\t\(Self.trigger(of: endpoint))")
            guard let function = answer["functions"]?[name] else { continue }
            if let url = function["url"]?.stringValue { print("  url: \(url)") }
            let instances = function["instances"]?.arrayValue ?? []
            print("  instances: \(instances.count) (min \(function["minInstances"]?.serialized() ?? "?"), "
                + "max \(function["maxInstances"]?.serialized() ?? "?"), "
                + "\(function["concurrency"]?.serialized() ?? "?") events each)")
            for instance in instances {
                print("  - \(instance["status"]?.stringValue ?? "?") \(instance["url"]?.stringValue ?? "no address"), "
                    + "pid \(instance["pid"]?.serialized() ?? "-"), \(instance["inFlight"]?.serialized() ?? "0") in flight, "
                    + "restarts \(instance["restarts"]?.serialized() ?? "0")")
            }
        }
        let params = answer["params"]?.arrayValue ?? []
        if !params.isEmpty {
            print("params (secrets masked):")
            for param in params {
                print("  \(param["name"]?.stringValue ?? "?") (\(param["type"]?.stringValue ?? "?")) = "
                    + (param["value"]?.stringValue ?? "(none)"))
            }
        }
        if let skipped = answer["skipped"]?.arrayValue, !skipped.isEmpty {
            print("not served (a trigger of a kind this runtime does not know): " + skipped.compactMap(\.stringValue).joined(separator: ", "))
        }
    }

    /// `eventType path-or-filters`, or the trigger kind for endpoints without an event trigger.
    static func trigger(of endpoint: JSONValue) -> String {
        guard let event = endpoint["eventTrigger"] else {
            return endpoint.objectValue?.keys.first { $0.hasSuffix("Trigger") } ?? "?"
        }
        let type = event["eventType"]?.stringValue ?? "?"
        let filters = (event["eventFilterPathPatterns"]?.objectValue ?? [:])
            .merging(event["eventFilters"]?.objectValue ?? [:]) { pattern, _ in pattern }
            .sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.stringValue ?? $0.value.serialized())" }
        return ([type] + filters).joined(separator: " ")
    }
}
