import CloudEvents
import CloudFunctions
import CloudFunctionsTesting
import Foundation
import HTTPTypes
import Synchronization

/// The events and functions the worker tests share.
enum WorkerFixtures {
    /// Parses `name: value` lines, the format of the CloudEvents test vectors' `.headers` files.
    static func headers(_ lines: String) -> HTTPFields {
        var fields = HTTPFields()
        for line in lines.split(separator: "\n") {
            let colon = line.firstIndex(of: ":")!
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            fields.append(HTTPField(name: HTTPField.Name(name)!, value: line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)))
        }
        return fields
    }

    /// The database event the Python Functions Framework accepted byte for byte
    ///.
    static let databaseHeaders = headers(
        """
        ce-id: bench-db-0001
        ce-source: //firebasedatabase.googleapis.com/projects/_/locations/us-central1/instances/bench-default-rtdb
        ce-type: google.firebase.database.ref.v1.written
        ce-specversion: 1.0
        ce-time: 2025-01-02T03:04:05.678Z
        ce-subject: refs/items/abc
        ce-instance: bench-default-rtdb
        ce-ref: items/abc
        ce-firebasedatabasehost: firebaseio.com
        ce-location: us-central1
        ce-authtype: admin
        content-type: application/json
        """
    )
    static let databaseBody = #"{"data":{"name":"old","count":1},"delta":{"count":2,"tag":"x"}}"#

    /// The Remote Config event the Python Functions Framework accepted byte for byte
    ///.
    static let remoteConfigHeaders = headers(
        """
        ce-id: bench-rc-0001
        ce-source: //firebaseremoteconfig.googleapis.com/projects/bench-project
        ce-type: google.firebase.remoteconfig.remoteConfig.v1.updated
        ce-specversion: 1.0
        ce-time: 2025-01-02T03:04:05.678Z
        content-type: application/json
        """
    )
    static let remoteConfigBody =
        #"{"versionNumber":"5","updateTime":"2025-01-02T03:04:05.678Z","updateUser":{"name":"Bench User","#
        + #""email":"a@b.com","imageUrl":"https://example.com/a.png"},"description":"d","updateOrigin":"CONSOLE","#
        + #""updateType":"INCREMENTAL_UPDATE"}"#

    /// The same Remote Config event in structured mode, written by hand (not by our encoder).
    static let remoteConfigStructured =
        #"{"specversion":"1.0","id":"bench-rc-0001","#
        + #""source":"//firebaseremoteconfig.googleapis.com/projects/bench-project","#
        + #""type":"google.firebase.remoteconfig.remoteConfig.v1.updated","time":"2025-01-02T03:04:05.678Z","#
        + #""datacontenttype":"application/json","data":"# + remoteConfigBody + "}"

    /// A legacy background event in the `{context, data}` form (the Node SDK's spec).
    static let legacyNested =
        #"{"context": {"eventId": "legacy-1", "eventType": "google.firebase.remoteconfig.update", "#
        + #""resource": {"name": "projects/demo"}, "timestamp": "2020-11-16T16:35:33.592Z"}, "#
        + #""data": {"versionNumber": "6", "updateType": "INCREMENTAL_UPDATE"}}"#

    /// A legacy database event in the flat form.
    static let legacyFlat = """
        {"eventType": "providers/google.firebase.database/eventTypes/ref.write", "params": {"child": "xyz"},
         "auth": {"admin": true}, "domain": "firebaseio.com",
         "data": {"data": null, "delta": {"grandchild": "other"}},
         "resource": "projects/_/instances/my-project-id/refs/gcf-test/xyz",
         "timestamp": "2020-09-29T11:32:00.000Z", "eventId": "aaaaaa-1111-bbbb-2222-cccccccccccc"}
        """

    /// What the handlers saw, in order.
    final class Seen: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "boom" }
    }

    /// `items` and `gcf` (database), `config` (Remote Config), `users` (auth), `fails` (throws), `slow` (sleeps
    /// on `clock` past its 5 s timeout) `anywhere` (records its params and attempt) and `elsewhere` (on `elsewhere/{id}`).
    static func functions(_ seen: Seen, clock: ManualClock = ManualClock()) -> FunctionRegistry {
        var functions = FunctionRegistry()
        functions["items"] = Database.ref("items/{id}").onWrite { change, context in
            seen.add("\(context.params["id"]!) \(change.after.val().serialized(sortedKeys: true))")
        }
        functions["gcf"] = Database.ref("gcf-test/{child}").onWrite { change, context in
            seen.add("\(context.params["child"]!) \(change.after.val().serialized(sortedKeys: true))")
        }
        functions["config"] = RemoteConfig.onUpdate { version, context in
            seen.add("v\(version.versionNumber) \(context.eventId)")
        }
        functions["fails"] = RemoteConfig.onUpdate { _, _ in throw Failure() }
        functions["slow"] = RemoteConfig.onUpdate { _, _ in
            seen.add("slow started")
            try await clock.sleep(until: .distantFuture)
        }.options(.timeout(.seconds(5)))
        functions["users"] = Auth.user().onCreate { user, _ in seen.add("user \(user.uid)") }
        functions["anywhere"] = Database.ref("{collection}/{id}").onWrite { _, context in
            let params = context.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            seen.add("params \(params.joined(separator: ",")) attempt \(context.attempt)")
        }
        functions["elsewhere"] = Database.ref("elsewhere/{id}").onWrite { _, _ in seen.add("elsewhere ran") }
        return functions
    }
}
