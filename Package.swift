// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "swift-cloud-functions",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CloudEvents", targets: ["CloudEvents"]),
        .library(name: "CloudFunctions", targets: ["CloudFunctions"]),
        .library(name: "FunctionsBus", targets: ["FunctionsBus"]),
        .library(name: "FunctionsBuiltins", targets: ["FunctionsBuiltins"]),
        .library(name: "FirestoreTriggers", targets: ["FirestoreTriggers"]),
        .library(name: "CloudFunctionsTesting", targets: ["CloudFunctionsTesting"]),
        .library(name: "FirebaseEmulator", targets: ["FirebaseEmulator"]),
        .library(name: "EmulatorServer", targets: ["EmulatorServer"]),
        .library(name: "FunctionsWorker", targets: ["FunctionsWorker"]),
        .library(name: "FirebaseHTTP", targets: ["FirebaseHTTP"]),
        .library(name: "GoogleAuth", targets: ["GoogleAuth"]),
        .executable(name: "functions", targets: ["functions"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.24.0"),
        // NIOHTTPCompression, already in the graph through AsyncHTTPClient: the limit of inflated answers.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
        // Portable bcrypt (the same on Linux and macOS).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.0.0"),
        // Telemetry: the worker exports spans and metrics over OTLP/HTTP where the environment
        // says (the gRPC exporter is left out: it would build gRPC); the emulator serves its
        // metrics in the Prometheus text format.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.1.0"),
    ],
    targets: [
        .target(name: "CloudEvents", swiftSettings: swiftSettings),
        .target(
            name: "CloudFunctions",
            dependencies: [
                "CloudEvents",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ProcessSupport",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // Firestore triggers: the protobuf event data (Swift generated from Protos/, committed;
        // no build plugin) read into CloudFunctions' DocumentSnapshot.
        .target(
            name: "FirestoreTriggers",
            dependencies: [
                "CloudFunctions", "CloudEvents",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FunctionsBus",
            dependencies: [
                "CloudFunctions", "CloudEvents",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FunctionsBuiltins",
            dependencies: [
                "CloudFunctions", "FirebaseHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(name: "CZlib"),
        .target(
            name: "FirebaseEmulator",
            dependencies: [
                "CloudFunctions", "CloudEvents", "FunctionsBus",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EmulatorServer",
            dependencies: [
                "FirebaseEmulator", "FirebaseHTTP", "FirestoreTriggers", "FunctionsBus", "CloudFunctions", "CloudEvents",
                "CZlib", "ProcessSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Console")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FirebaseHTTP",
            dependencies: [
                "CloudFunctions", "CloudEvents",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GoogleAuth",
            dependencies: [
                "CloudFunctions", "FirebaseHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FunctionsWorker",
            dependencies: [
                "CloudFunctions", "CloudEvents", "FirebaseHTTP", "FirestoreTriggers", "FunctionsBuiltins", "GoogleAuth",
                "ProcessSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CloudFunctionsTesting",
            dependencies: ["CloudFunctions", "CloudEvents", "FunctionsBus", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RemoteConfigClient",
            dependencies: ["CloudFunctions", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "functions",
            dependencies: [
                "EmulatorServer", "FirebaseEmulator", "CloudFunctions", "CloudEvents", "RemoteConfigClient",
                "FirebaseHTTP", "ProcessSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/FunctionsCLI",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "push-config-worker",
            dependencies: ["CloudFunctions", "FunctionsBuiltins", "FunctionsWorker"],
            path: "Tests/Fixtures/PushConfigWorker",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "rehearsal-worker",
            dependencies: ["CloudFunctions", "FunctionsWorker", .product(name: "Logging", package: "swift-log")],
            path: "Tests/Fixtures/RehearsalWorker",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RemoteConfigClientTests",
            dependencies: [
                "RemoteConfigClient", "EmulatorServer", "FirebaseEmulator", "CloudFunctions", "FunctionsBuiltins",
                "FunctionsBus",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "CloudEventsTests", dependencies: ["CloudEvents"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FunctionsBusTests",
            dependencies: [
                "FunctionsBus", "CloudFunctions", "CloudEvents", "CloudFunctionsTesting",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FunctionsWorkerTests",
            dependencies: [
                "FunctionsWorker", "CloudFunctions", "CloudEvents", "CloudFunctionsTesting", "FunctionsBuiltins",
                "FirebaseHTTP", "ProcessSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GoogleAuthTests",
            dependencies: [
                "GoogleAuth", "FirebaseHTTP", "CloudFunctions", "CloudFunctionsTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ProcessSupportTests",
            dependencies: ["ProcessSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "FunctionsCLITests", dependencies: ["CloudFunctions"], swiftSettings: swiftSettings),
        .testTarget(
            name: "EmulatorServerTests",
            dependencies: [
                "EmulatorServer", "FunctionsWorker", "FirebaseEmulator", "FirebaseHTTP", "CloudFunctions", "CloudEvents",
                "CloudFunctionsTesting", "FunctionsBus", "FirestoreTriggers", "ProcessSupport",
                "FunctionsBuiltins", "CZlib",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FirebaseHTTPTests",
            dependencies: [
                "FirebaseHTTP", "EmulatorServer", "FunctionsWorker", "FirebaseEmulator", "CloudFunctions", "CloudEvents",
                "FunctionsBuiltins",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FunctionsBuiltinsTests",
            dependencies: [
                "FunctionsBuiltins", "EmulatorServer", "FunctionsWorker", "FirebaseEmulator", "FirebaseHTTP",
                "CloudFunctions", "FunctionsBus",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FirebaseEmulatorTests",
            dependencies: [
                "FirebaseEmulator", "CloudFunctions", "CloudEvents", "CloudFunctionsTesting", "FunctionsBuiltins",
                "FunctionsBus", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FirestoreTriggersTests",
            dependencies: [
                "FirestoreTriggers", "CloudFunctions", "CloudEvents", "CloudFunctionsTesting", "FunctionsBus",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CloudFunctionsTests",
            dependencies: ["CloudFunctions", "CloudEvents", "CloudFunctionsTesting", "FunctionsBuiltins", "FunctionsBus"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
    ]
)
