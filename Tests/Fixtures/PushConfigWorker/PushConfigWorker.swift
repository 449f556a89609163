import CloudFunctions
import FunctionsBuiltins
import FunctionsWorker

/// The smallest functions binary: `pushConfig` on topic `PUSH_RC`, served with the worker
/// protocol. The emulator's tests deploy it; `functions/` is the full sample project.
@main
struct PushConfigWorker: FunctionsApp {
    static func register(_ functions: inout FunctionRegistry) {
        functions.use(PushConfig(topic: "PUSH_RC"))
    }
}
