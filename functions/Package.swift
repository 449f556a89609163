// swift-tools-version: 6.1
// The sample author project: the functions `./deploy.sh` deploys to the local emulator.
import PackageDescription

let package = Package(
    name: "functions",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "AppFunctions", targets: ["AppFunctions"]),
    ],
    dependencies: [
        .package(name: "swift-cloud-functions", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "AppFunctions",
            // FunctionsWorker brings the authoring API and the built-in plugins with it.
            dependencies: [.product(name: "FunctionsWorker", package: "swift-cloud-functions")],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ]
)
