// swift-tools-version: 6.1
// Examples of the library used in process, a package of their own so that the library's build
// and tests do not compile them: `swift run --package-path Examples stale-loop`.
import PackageDescription

let package = Package(
    name: "examples",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-cloud-functions", path: ".."),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "stale-loop",
            dependencies: [
                .product(name: "CloudFunctions", package: "swift-cloud-functions"),
                .product(name: "CloudEvents", package: "swift-cloud-functions"),
                .product(name: "FirebaseEmulator", package: "swift-cloud-functions"),
                .product(name: "FunctionsBuiltins", package: "swift-cloud-functions"),
                .product(name: "FunctionsBus", package: "swift-cloud-functions"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "StaleLoop",
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ]
)
