import CloudFunctions
import CloudFunctionsTesting
import FirebaseEmulator
import Foundation
import FunctionsBuiltins
import Testing

@Suite("Messaging service")
struct MessagingServiceTests {
    static func service(_ store: EmulatorStore? = nil) throws -> MessagingService {
        try MessagingService(store: store ?? EmulatorStore(directory: nil), project: "demo", clock: ManualClock())
    }

    static func unregisteredToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return FCMRegistrationToken.generate(using: &generator)
    }

    @discardableResult
    static func send(_ service: MessagingService, _ json: JSONValue) async throws -> MessagingService.SendResult {
        try await service.send(FCMSendRequest.parse(["message": json]))
    }

    @Test("registers devices with well-formed, distinct tokens")
    func registration() async throws {
        let service = try Self.service()
        let tokens = try await service.registerDevices(count: 3, platform: "ios")
        #expect(Set(tokens).count == 3)
        #expect(tokens.allSatisfy { FCMRegistrationToken.isWellFormed($0) && service.isRegistered($0) })
        #expect(!service.isRegistered("nope"))
    }

    @Test("subscribing reports each token's outcome")
    func subscribeOutcomes() async throws {
        let service = try Self.service()
        let token = try await service.registerDevice()
        let unknown = Self.unregisteredToken()
        let outcomes = try await service.subscribe(tokens: [token, "bad token", unknown], to: "/topics/news")
        #expect(outcomes == [.success, .failure(.invalidArgument), .failure(.notFound)])
        #expect(service.topics(forToken: token) == ["news"])
        await #expect(throws: ServiceError.self) { try await service.subscribe(tokens: [token], to: "bad topic!") }
    }

    @Test("a topic message reaches exactly the devices subscribed when it was sent")
    func topicHistory() async throws {
        let service = try Self.service()
        let tokens = try await service.registerDevices(count: 4)
        _ = try await service.subscribe(tokens: Array(tokens[0...2]), to: "PUSH_RC")
        let first = try await Self.send(service, ["topic": "PUSH_RC", "data": ["n": "1"]])
        #expect(first.recipients == 3)
        _ = try await service.unsubscribe(tokens: [tokens[0]], from: "PUSH_RC")
        _ = try await service.subscribe(tokens: [tokens[3]], to: "PUSH_RC")
        let second = try await Self.send(service, ["topic": "PUSH_RC", "data": ["n": "2"]])
        #expect(second.recipients == 3)
        #expect(try service.inbox(token: tokens[0]).map(\.data) == [["n": "1"]])
        #expect(try service.inbox(token: tokens[1]).map(\.data) == [["n": "1"], ["n": "2"]])
        #expect(try service.inbox(token: tokens[3]).map(\.data) == [["n": "2"]])
        #expect(try service.inbox(token: tokens[1]).first?.topic == "PUSH_RC")
    }

    @Test("token and condition messages reach their recipients only")
    func tokenAndCondition() async throws {
        let service = try Self.service()
        let tokens = try await service.registerDevices(count: 3)
        _ = try await service.subscribe(tokens: [tokens[0], tokens[1]], to: "a")
        _ = try await service.subscribe(tokens: [tokens[1], tokens[2]], to: "b")
        let direct = try await Self.send(service, ["token": .string(tokens[2]), "data": ["k": "direct"]])
        #expect(direct.recipients == 1)
        #expect(direct.name.hasPrefix("projects/demo/messages/"))
        let both = try await Self.send(service, ["condition": "'a' in topics && 'b' in topics", "data": ["k": "both"]])
        #expect(both.recipients == 1)
        #expect(try service.inbox(token: tokens[0]).isEmpty)
        #expect(try service.inbox(token: tokens[1]).map(\.data) == [["k": "both"]])
        #expect(try service.inbox(token: tokens[2]).map(\.data) == [["k": "direct"]])
    }

    @Test("a condition with ! reaches devices subscribed to no topic at all, as FCM documents")
    func negationReachesUnsubscribed() async throws {
        let service = try Self.service()
        let tokens = try await service.registerDevices(count: 3)
        _ = try await service.subscribe(tokens: [tokens[0]], to: "a")
        _ = try await service.subscribe(tokens: [tokens[1]], to: "b")
        let notA = try await Self.send(service, ["condition": "!('a' in topics)", "data": ["k": "not a"]])
        #expect(notA.recipients == 2)
        #expect(try service.inbox(token: tokens[0]).isEmpty)
        #expect(try service.inbox(token: tokens[1]).map(\.data) == [["k": "not a"]])
        #expect(try service.inbox(token: tokens[2]).map(\.data) == [["k": "not a"]], "subscribed to nothing")
        let either = try await Self.send(service, ["condition": "'a' in topics || !('b' in topics)", "data": ["k": "e"]])
        #expect(either.recipients == 2)
        #expect(try service.inbox(token: tokens[1]).count == 1)
    }

    @Test("a dry run to a token that is not registered is UNREGISTERED, as a send is")
    func dryRunUnregistered() async throws {
        let service = try Self.service()
        let token = try await service.registerDevice()
        let dryRun = try await service.send(FCMSendRequest.parse(["message": ["token": .string(token), "data": ["k": "v"]],
            "validate_only": true]))
        #expect(dryRun.recipients == 0)
        // Another device's well-formed token, never registered here.
        let other = try await Self.service().registerDevice()
        let refused = await #expect(throws: ServiceError.self) {
            try await service.send(FCMSendRequest.parse(["message": ["token": .string(other)], "validate_only": true]))
        }
        #expect(refused?.message.contains("not found") == true)
        #expect(try service.inbox(token: token).isEmpty, "a dry run sends nothing")
    }

    @Test("the pushConfig message arrives with its APNs and Android options")
    func pushConfigMessage() async throws {
        let service = try Self.service()
        let token = try await service.registerDevice(platform: "ios")
        _ = try await service.subscribe(tokens: [token], to: "PUSH_RC")
        try await service.send(PushConfig().message)
        let message = try #require(try service.inbox(token: token).first)
        #expect(message.data == ["CONFIG_STATE": "STALE"])
        #expect(message.apns?.isContentAvailable == true)
        #expect(message.apns?.headers["apns-push-type"] == "background")
        #expect(message.android?.priority == .high)
        #expect(message.topic == "PUSH_RC")
    }

    @Test("rejects invalid messages with FCM errors and stores nothing")
    func invalid() async throws {
        let service = try Self.service()
        let token = try await service.registerDevice()
        _ = try await service.subscribe(tokens: [token], to: "t")
        await #expect {
            try await Self.send(service, ["topic": "t", "data": ["from": "x"]])
        } throws: { ($0 as? ServiceError)?.status == "INVALID_ARGUMENT" }
        let unknown = Self.unregisteredToken()
        await #expect {
            try await Self.send(service, ["token": .string(unknown), "data": ["k": "v"]])
        } throws: { ($0 as? ServiceError)?.httpStatus == 404 }
        let validated = try await service.send(FCMSendRequest.parse(["message": ["topic": "t"], "validate_only": true]))
        #expect(validated.recipients == 0)
        #expect(try service.inbox(token: token).isEmpty)
        #expect(throws: ServiceError.self) { try service.inbox(token: unknown) }
    }

    @Test("devices, subscriptions and inboxes survive reopening the store")
    func persistence() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        var token = ""
        do {
            let service = try Self.service(EmulatorStore(directory: directory))
            token = try await service.registerDevice()
            _ = try await service.subscribe(tokens: [token], to: "news")
            try await Self.send(service, ["topic": "news", "data": ["n": "1"]])
        }
        let reopened = try Self.service(EmulatorStore(directory: directory))
        #expect(reopened.isRegistered(token))
        #expect(reopened.subscriberCount(forTopic: "news") == 1)
        try await Self.send(reopened, ["topic": "news", "data": ["n": "2"]])
        #expect(try reopened.inbox(token: token).map(\.data) == [["n": "1"], ["n": "2"]])
    }

    @Test("a listener receives messages as they arrive")
    func updates() async throws {
        let service = try Self.service()
        let tokens = try await service.registerDevices(count: 2)
        _ = try await service.subscribe(tokens: [tokens[0]], to: "news")
        let stream = service.inboxUpdates(token: tokens[0])
        try await Self.send(service, ["token": .string(tokens[1]), "data": ["n": "other"]])
        try await Self.send(service, ["topic": "news", "data": ["n": "1"]])
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.data == ["n": "1"])
    }

    @Test("the in-process client sends through the service")
    func client() async throws {
        let service = try Self.service()
        let token = try await service.registerDevice()
        let name = try await EmulatorMessagingClient(service: service).send(Message(.token(token), data: ["a": "b"]))
        #expect(try service.inbox(token: token).map(\.name) == [name])
    }

    @Test("a message built in code meets the same wire rules as one sent over HTTP")
    func inProcessSendsAreChecked() async throws {
        let service = try Self.service()
        let token = try await service.registerDevice()
        var android = AndroidConfig(notification: AndroidNotification(title: "t"))
        android.notification?.visibility = "SOMETIMES"
        await #expect(throws: ServiceError.self) { try await service.send(Message(.token(token), android: android)) }
        await #expect(throws: ServiceError.self) {
            try await service.send(Message(.token(token), apns: APNSConfig(payload: "not an object")))
        }
        var message = Message(.topic("news"))
        message.target = .topic("/topics/news")
        try await service.send(message)
        _ = try await service.subscribe(tokens: [token], to: "other")
        #expect(try service.inbox(token: token).isEmpty)
        _ = try await service.subscribe(tokens: [token], to: "news")
        try await service.send(message)
        #expect(try service.inbox(token: token).map(\.topic) == ["news"], "the inbox shows the validated topic")
    }
}
