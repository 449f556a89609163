import CloudEvents
import CloudFunctions
import EmulatorServer
import FirebaseEmulator
import FirebaseHTTP
import Foundation
import NIOHTTP1
import Testing

/// What the deployed functions' workers write: kept by function with its severity, message and
/// event, listed at `GET .../logs` and followed live with `Accept: text/event-stream`.
@Suite("Function logs", .timeLimit(.minutes(3)))
struct FunctionLogsTests {
    @Test("a structured line keeps its fields; other lines are DEFAULT on standard output and ERROR on standard error")
    func parsing() throws {
        let logs = FunctionLogs()
        let structured = logs.append(
            #"{"severity":"WARNING","message":"slow","time":"2026-11-25T10:00:00.000Z","logger":"functions.worker","#
                + #""function":"named-in-line","event.id":"e1","attempt":"2","logging.googleapis.com/labels":{"function":"x"}}"#,
            function: "configUpdated", stream: .output)
        #expect(structured.severity == "WARNING" && structured.message == "slow" && structured.time == "2026-11-25T10:00:00.000Z")
        #expect(structured.function == "configUpdated", "the worker's function, whatever the line says")
        #expect(structured.eventID == "e1" && structured.labels == ["attempt": "2"])
        let printed = logs.append("plain text {not json", function: "configUpdated", stream: .output)
        #expect(printed.severity == "DEFAULT" && printed.message == "plain text {not json" && printed.labels.isEmpty)
        let crash = logs.append("Fatal error: boom", function: "scoreWritten", stream: .error)
        #expect(crash.severity == "ERROR")
        let unknownSeverity = logs.append(#"{"severity":"LOUD","message":"?"}"#, function: "x", stream: .output)
        #expect(unknownSeverity.severity == "DEFAULT")
        #expect([structured, printed, crash, unknownSeverity].map(\.sequence) == [1, 2, 3, 4])
    }

    @Test("lists the newest lines oldest first, by function and minimum severity; keeps exactly its capacity")
    func listing() {
        let logs = FunctionLogs(capacity: 8)
        for index in 1...20 {
            let severity = index.isMultiple(of: 5) ? "ERROR" : "INFO"
            logs.append(#"{"severity":"\#(severity)","message":"line \#(index)"}"#,
                function: index.isMultiple(of: 2) ? "even" : "odd", stream: .output)
        }
        #expect(logs.entries(limit: 100).map(\.message) == (13...20).map { "line \($0)" })
        #expect(logs.entries(limit: 3).map(\.message) == ["line 18", "line 19", "line 20"])
        #expect(logs.entries(function: "even", limit: 100).map(\.message) == ["line 14", "line 16", "line 18", "line 20"])
        #expect(logs.entries(minimumSeverity: "WARNING", limit: 100).map(\.message) == ["line 15", "line 20"])
        #expect(logs.entries(function: "odd", minimumSeverity: "ERROR", limit: 100).map(\.message) == ["line 15"])
        logs.append("line 21", function: "odd", stream: .output)
        #expect(logs.entries(limit: 100).map(\.message) == (14...21).map { "line \($0)" })
    }

    @Test("a deployed worker's lines are listed by function with their event, and followed live", .timeLimit(.minutes(2)))
    func deployed() async throws {
        let emulator = try Emulator(project: "demo", directory: nil)
        let server = EmulatorServer(emulator: emulator)
        try await server.withRunning { base in
            _ = try await server.deployments.deploy(binary: FunctionInstancesTests.workerBinary,
                manifest: FunctionInstancesTests.manifest())
            let followed = server.deployments.logs.follow()
            try await FunctionInstancesTests.publish(emulator, description: "fail-first")
            await emulator.waitUntilIdle()
            let event = try #require(try emulator.store.eventLog().first).entry.event

            // The worker's lines may still be in its pipe when its answer has arrived.
            for await line in followed {
                if line.function == "configUpdated", line.message == "function failed" { break }
            }
            let admin = AdminHTTP(baseURL: base)
            let entries: [JSONValue] = try await admin.send("GET", "/emulator/v1/projects/demo/logs",
                query: [URLQueryItem(name: "function", value: "configUpdated")]).json()["entries"]?.arrayValue ?? []
            #expect(entries.allSatisfy { $0["function"] == "configUpdated" })
            let mine = entries.filter { $0["eventId"]?.stringValue == event.id }
            // Its only attempt (retries are off) started, then failed: the worker logs the error.
            #expect(mine.filter { $0["message"] == "started" }.count == 1, "\(entries)")
            let failure = mine.last { $0["message"] == "function failed" }
            #expect(failure?["severity"] == "ERROR")
            #expect(failure?["labels"]?["error"]?.stringValue?.hasPrefix("first attempt of") == true, "\(String(describing: failure))")
            let errors = try await admin.send("GET", "/emulator/v1/projects/demo/logs",
                query: [URLQueryItem(name: "severity", value: "error")]).json()["entries"]?.arrayValue ?? []
            #expect(!errors.isEmpty && errors.allSatisfy { $0["severity"] == "ERROR" && $0["eventId"]?.stringValue == event.id },
                "\(errors)")
            await #expect(throws: AdminHTTPError.self) {
                try await admin.send("GET", "/emulator/v1/projects/demo/logs", query: [URLQueryItem(name: "severity", value: "LOUD")])
            }

            // Followed: the newest line of scoreWritten (none yet), then the one a write causes.
            try await SSETestClient.withStream(port: base.port!, uri: "/emulator/v1/projects/demo/logs?function=scoreWritten",
                headers: [("Accept", "text/event-stream")]) { reader in
                #expect(try await reader.head()?.status == .ok)
                try await emulator.database.set(namespace: emulator.defaultDatabaseInstance, path: "scores/s7", value: ["score": 7])
                // Its earlier lines (the worker's start) come first; then the write's.
                var entry = JSONValue.null
                while entry["message"] != "handled" {
                    let frame = try #require(try await reader.next())
                    guard frame.event == "log" else { continue }  // comments
                    entry = try JSONValue(parsing: frame.data)
                    #expect(entry["function"] == "scoreWritten")
                }
                #expect(entry["labels"]?["score"] == "s7")
            }
        }
    }
}
