import FirebaseEmulator
import FunctionsBus
import Hummingbird
import NIOCore

/// `GET /metrics`: the emulator's metrics (``EmulatorMetrics``) in the Prometheus text format,
/// for a Prometheus server or any scraper.
struct MetricsRoutes {
    let server: EmulatorServer

    func add(to router: Router<EmulatorRequestContext>) {
        router.get("metrics") { _, _ in
            var deadLetters: [String: Int] = [:]
            var instances: [String: Int] = [:]
            if let deployment = server.deployments.deployment {
                for (name, pool) in deployment.functions {
                    instances[name] = pool.supervisors.count
                    deadLetters[name] = 0
                }
            }
            for letter in server.emulator.bus?.deadLetters ?? [] { deadLetters[letter.function, default: 0] += 1 }
            let bytes = server.metrics.render(deadLetters: deadLetters, instances: instances,
                outboxPending: try server.emulator.store.pendingEventCount())
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }
}
