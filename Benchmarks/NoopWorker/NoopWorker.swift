import CloudFunctions
import FunctionsWorker

/// A functions binary whose one function does nothing: `worker-benchmark.sh` measures the
/// worker itself with it (cold start, idle memory, CloudEvents served per second).
@main
struct NoopWorker: FunctionsApp {
    static func register(_ functions: inout FunctionRegistry) {
        functions["noop"] = Eventarc.onEvent(type: "dev.benchmark.v1.noop") { _, _ in }
    }
}
