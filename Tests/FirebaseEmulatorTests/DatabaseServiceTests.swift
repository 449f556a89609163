import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import Testing

@Suite("Database service: reads and writes")
struct DatabaseServiceTests {
    let harness: DatabaseServiceHarness
    var service: DatabaseService { harness.service }
    var ns: String { harness.ns }

    init() throws {
        harness = try DatabaseServiceHarness()
    }

    @Test("a missing location reads as null with the null ETag")
    func emptyRead() throws {
        #expect(try service.get(namespace: ns, path: "/") == .null)
        #expect(try service.get(namespace: "other-db", path: "/a/b") == .null)
        #expect(try service.etag(namespace: ns, path: "/a") == "null_etag")
    }

    @Test("getWithETag reads the (queried) value and the location's ETag together")
    func getWithETag() async throws {
        let empty = try service.getWithETag(namespace: ns, path: "/u")
        #expect(empty.value == .null && empty.etag == "null_etag")
        try await service.set(namespace: ns, path: "/u", value: ["a": ["n": 1], "b": ["n": 2]])
        let read = try service.getWithETag(
            namespace: ns, path: "/u", queryParameters: ["orderBy": #""n""#, "limitToFirst": "1"])
        #expect(read.value == ["a": ["n": 1]])
        #expect(read.etag == (try service.etag(namespace: ns, path: "/u")))
        #expect(throws: ServiceError.self) {
            try service.getWithETag(namespace: ns, path: "/u", queryParameters: ["startAt": "1"])
        }
    }

    @Test("set stores and echoes the value, with server values resolved and arrays rendered")
    func set() async throws {
        let result = try await service.set(
            namespace: ns, path: "/users/u1",
            value: ["name": "Ada", "at": [".sv": "timestamp"], "tags": ["x", "y"]])
        let expected: JSONValue = ["name": "Ada", "at": 1_700_000_000_000, "tags": ["x", "y"]]
        #expect(result.value == expected)
        #expect(result.path.description == "/users/u1")
        #expect(try service.get(namespace: ns, path: "users/u1") == expected)
        #expect(try service.get(namespace: ns, path: "/users/u1/tags/1") == "y")
        #expect(result.etag == (try service.etag(namespace: ns, path: "/users/u1")))
        #expect(result.etag != "null_etag")
        #expect(try service.get(namespace: "other-db", path: "/users") == .null)
    }

    @Test("increment adds to the current number")
    func increment() async throws {
        try await service.set(namespace: ns, path: "/count", value: 2)
        let result = try await service.set(namespace: ns, path: "/count", value: [".sv": ["increment": 3]])
        #expect(result.value == 5)
        #expect(try service.get(namespace: ns, path: "/count") == 5)
    }

    @Test("update writes multi-path keys, deletes nulls and keeps other children")
    func update() async throws {
        try await service.set(namespace: ns, path: "/u", value: ["a": 1, "b": ["c": 2, "d": 3], "e": 4])
        let result = try await service.update(namespace: ns, path: "/u", values: ["b/c": 20, "e": nil, "f": "new"])
        #expect(result.value == ["b/c": 20, "e": nil, "f": "new"])
        #expect(try service.get(namespace: ns, path: "/u") == ["a": 1, "b": ["c": 20, "d": 3], "f": "new"])
        #expect(result.etag == (try service.etag(namespace: ns, path: "/u")))
    }

    @Test("push stores under a 20-character chronological id")
    func push() async throws {
        let first = try await service.push(namespace: ns, path: "/msgs", value: ["text": "hi"])
        harness.clock.advance(by: .milliseconds(5))
        let second = try await service.push(namespace: ns, path: "/msgs", value: "")
        let firstID = try #require(first.name)
        let secondID = try #require(second.name)
        #expect(firstID.count == 20 && secondID.count == 20)
        #expect(firstID < secondID)
        #expect(DatabasePushID.timestamp(of: firstID) == 1_700_000_000_000)
        #expect(try service.get(namespace: ns, path: "/msgs") == [firstID: ["text": "hi"], secondID: ""])
        #expect(first.value == ["text": "hi"])
    }

    @Test("delete removes the value and empty parents")
    func delete() async throws {
        try await service.set(namespace: ns, path: "/a/b/c", value: 1)
        let result = try await service.delete(namespace: ns, path: "/a/b/c")
        #expect(result.value == .null)
        #expect(result.etag == "null_etag")
        #expect(try service.get(namespace: ns, path: "/") == .null)
        try await service.delete(namespace: ns, path: "/nothing/here")
    }

    @Test("queries: shallow, ordering with ranges and limits, from parameters too")
    func queries() async throws {
        try await service.set(
            namespace: ns, path: "/people",
            value: ["a": ["age": 30], "b": ["age": 17], "c": ["age": 25], "d": ["age": 40]])
        #expect(try service.get(namespace: ns, path: "/people", query: DatabaseQuery(shallow: true))
            == ["a": true, "b": true, "c": true, "d": true])
        let query = try DatabaseQuery(parameters: [
            "orderBy": "\"age\"", "startAt": "18", "endAt": "35", "limitToFirst": "5",
        ])
        #expect(try service.get(namespace: ns, path: "/people", query: query) == ["a": ["age": 30], "c": ["age": 25]])
        let parameters = ["orderBy": "\"$key\"", "limitToLast": "1"]
        #expect(try service.get(namespace: ns, path: "/people", queryParameters: parameters) == ["d": ["age": 40]])
    }

    @Test("a bad query is rejected with the Firebase message")
    func badQuery() throws {
        let error = #expect(throws: ServiceError.self) {
            try service.get(namespace: ns, path: "/people", queryParameters: ["limitToFirst": "1"])
        }
        #expect(error?.message == "orderBy must be defined when other query parameters are defined")
        #expect(error?.httpStatus == 400)
    }

    @Test("bad paths, keys, values and namespaces are rejected and change nothing", arguments: [
        ("/a/b.c", "Invalid path: segment \"b.c\" must not contain '/', '.', '#', '$', '[', or ']'"),
        ("/a/$x", "Invalid path: segment \"$x\" must not contain '/', '.', '#', '$', '[', or ']'"),
    ])
    func badPath(path: String, message: String) async throws {
        try await service.set(namespace: ns, path: "/a", value: 1)
        let error = await #expect(throws: ServiceError.self) { try await service.set(namespace: ns, path: path, value: 2) }
        #expect(error?.status == "INVALID_ARGUMENT")
        #expect(error?.message == message)
        #expect(throws: ServiceError.self) { try service.get(namespace: ns, path: path) }
        #expect(try service.get(namespace: ns, path: "/") == ["a": 1])
    }

    @Test("bad data is rejected with the Firebase message and changes nothing")
    func badData() async throws {
        try await service.set(namespace: ns, path: "/keep", value: ["x": 1])
        let badKey = await #expect(throws: ServiceError.self) {
            try await service.set(namespace: ns, path: "/keep", value: ["ok": 1, "bad.key": 2])
        }
        #expect(badKey?.message == "Invalid key: bad.key. Keys must not contain '/', '.', '#', '$', '[', or ']'")
        await #expect(throws: ServiceError.self) {
            try await service.update(namespace: ns, path: "/keep", values: ["a": 1, "a/b": 2])
        }
        await #expect(throws: ServiceError.self) { try await service.update(namespace: ns, path: "/keep", values: 3) }
        await #expect(throws: ServiceError.self) { try await service.push(namespace: ns, path: "/keep", value: ["$": 1]) }
        let badNamespace = await #expect(throws: ServiceError.self) {
            try await service.set(namespace: "bad ns!", path: "/a", value: 1)
        }
        #expect(badNamespace?.status == "INVALID_ARGUMENT")
        #expect(try service.get(namespace: ns, path: "/") == ["keep": ["x": 1]])
        #expect(harness.recorder.take().isEmpty)
    }

    @Test("a conditional write succeeds on the current ETag and fails with 412, value and ETag otherwise")
    func conditionalWrites() async throws {
        let created = try await service.write(DatabaseWrite(.set(["v": 1]),
            namespace: ns, path: "/doc", ifMatch: "null_etag"))
        let updated = try await service.write(DatabaseWrite(.set(["v": 2]),
            namespace: ns, path: "/doc", ifMatch: created.etag))
        let error = await #expect(throws: ServiceError.self) {
            try await service.write(DatabaseWrite(.set(["v": 3]), namespace: ns, path: "/doc", ifMatch: created.etag))
        }
        #expect(error?.status == "FAILED_PRECONDITION")
        #expect(error?.httpStatus == 412)
        let failure = try #require(error.flatMap(DatabasePreconditionFailure.init))
        #expect(failure == DatabasePreconditionFailure(value: ["v": 2], etag: updated.etag))
        await #expect(throws: ServiceError.self) { try await service.write(DatabaseWrite(.delete,
            namespace: ns, path: "/doc", ifMatch: "null_etag")) }
        await #expect(throws: ServiceError.self) {
            try await service.write(DatabaseWrite(.update(["v": 9]), namespace: ns, path: "/doc", ifMatch: "nope"))
        }
        #expect(try service.get(namespace: ns, path: "/doc") == ["v": 2])
        try await service.write(DatabaseWrite(.delete, namespace: ns, path: "/doc", ifMatch: updated.etag))
        #expect(try service.get(namespace: ns, path: "/doc") == .null)
    }

    @Test("export returns the whole tree and import replaces it without events")
    func exportImport() async throws {
        harness.service.setTriggers([Database.ref("/{any=**}").onWrite(noHandler).eventTrigger!])
        try await service.set(namespace: ns, path: "/old", value: 1)
        _ = harness.recorder.take()
        try await service.importTree(namespace: ns, value: ["list": ["a", "b"], "n": 1])
        #expect(try service.export(namespace: ns) == ["list": ["a", "b"], "n": 1])
        #expect(harness.recorder.take().isEmpty)
        #expect(service.namespaces() == [ns])
        await #expect(throws: ServiceError.self) { try await service.importTree(namespace: ns, value: ["bad/key": 1]) }
        #expect(try service.export(namespace: ns) == ["list": ["a", "b"], "n": 1])
    }
}
