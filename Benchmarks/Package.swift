// swift-tools-version: 6.1
// The benchmarks, a package of their own so that the library's build and tests do not compile
// them: `swift build -c release --package-path Benchmarks` (see docs/performance.md).
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-cloud-functions", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
    ],
    targets: [
        .executableTarget(
            name: "bus-benchmark",
            dependencies: [
                .product(name: "CloudFunctions", package: "swift-cloud-functions"),
                .product(name: "CloudEvents", package: "swift-cloud-functions"),
                .product(name: "FunctionsBus", package: "swift-cloud-functions"),
            ],
            path: "BusBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "noop-worker",
            dependencies: [
                .product(name: "CloudFunctions", package: "swift-cloud-functions"),
                .product(name: "FunctionsWorker", package: "swift-cloud-functions"),
            ],
            path: "NoopWorker",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "bare-route",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
            ],
            path: "BareRoute",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "emulator-benchmark",
            dependencies: [
                .product(name: "FirebaseEmulator", package: "swift-cloud-functions"),
                .product(name: "CloudFunctions", package: "swift-cloud-functions"),
                .product(name: "CloudFunctionsTesting", package: "swift-cloud-functions"),
                .product(name: "FunctionsBus", package: "swift-cloud-functions"),
                .product(name: "FunctionsBuiltins", package: "swift-cloud-functions"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "EmulatorBenchmark",
            swiftSettings: swiftSettings
        ),
    ]
)
