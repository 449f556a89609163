// swift-tools-version: 6.1
// Examples of the library used in process, a package of their own so that the library's build
// and tests do not compile them: `swift run --package-path Examples stale-loop`.
import PackageDescription

/// A library of the swift-cloud-functions package this one is in.
func library(_ name: String) -> Target.Dependency {
    .product(name: name, package: "swift-cloud-functions")
}

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
                library("CloudFunctions"), library("CloudEvents"), library("FirebaseEmulator"),
                library("FunctionsBuiltins"), library("FunctionsBus"),
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
