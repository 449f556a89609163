import CloudFunctions
import FunctionsWorker

/// A functions binary for measuring the worker itself: `noop` does nothing with its event
/// (`worker-benchmark.sh`: cold start, idle memory, CloudEvents served per second), and
/// `config`, a typed Remote Config function that reads the version, is measured against a bare
/// Hummingbird route reading the same event (`worker-vs-bare.py`).
@main
struct NoopWorker: FunctionsApp {
    static func register(_ functions: inout FunctionRegistry) {
        functions["noop"] = Eventarc.onEvent(type: "dev.benchmark.v1.noop") { _, _ in }
        functions["config"] = RemoteConfig.onUpdate { version, _ in
            guard version.versionNumber > 0 else { throw CallableError(.invalidArgument, "no version") }
        }
    }
}
