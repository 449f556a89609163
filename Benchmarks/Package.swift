// swift-tools-version: 6.1
// The benchmarks, a package of their own so that the library's build and tests do not compile
// them: `swift build -c release --package-path Benchmarks` (see docs/performance.md).
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// A library of the swift-cloud-functions package this one is in.
func library(_ name: String) -> Target.Dependency {
    .product(name: name, package: "swift-cloud-functions")
}

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
            dependencies: [library("CloudFunctions"), library("CloudEvents"), library("FunctionsBus")],
            path: "BusBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "noop-worker",
            dependencies: [library("CloudFunctions"), library("FunctionsWorker")],
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
                library("FirebaseEmulator"), library("CloudFunctions"), library("CloudFunctionsTesting"),
                library("FunctionsBus"), library("FunctionsBuiltins"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "EmulatorBenchmark",
            swiftSettings: swiftSettings
        ),
    ]
)
