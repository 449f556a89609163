import CloudEvents
import CloudFunctions
import CoreMetrics
import FirebaseEmulator
import FirebaseHTTP
import Foundation

/// Builds the functions of a deployed manifest: each one delivers its events to the worker
/// process over HTTP, as a binary-mode CloudEvent (`POST /{name}`), the way Cloud Run and
/// Eventarc do. A 2xx answer is success; anything else, or no answer before the attempt's
/// deadline, is a failure the bus retries per the function's options.
///
/// Deadlines come from the bus's clock and are compared with that clock only.
enum HTTPDelivery {
    /// The registry of a manifest's event-triggered endpoints, each delivering to an instance
    /// of its own (`instances`; an endpoint without is left out). The bus lets as many events
    /// run at once as all its instances can take.
    ///
    /// - Throws: `INVALID_ARGUMENT` for a malformed trigger. Request functions (HTTPS, callable,
    ///   blocking, task queues) are returned in `requests`; endpoints of no kind this runtime
    ///   knows in `skipped`.
    static func registry(
        manifest: FunctionsManifest,
        instances: [String: FunctionInstances],
        clock: any BusClock,
        tracer: EmulatorTracer,
        metrics: EmulatorMetrics
    ) throws -> (functions: FunctionRegistry, requests: [String: FunctionTrigger], skipped: [String]) {
        var functions = FunctionRegistry()
        var requests: [String: FunctionTrigger] = [:]
        var skipped: [String] = []
        for (name, endpoint) in manifest.endpoints.sorted(by: { $0.key < $1.key }) {
            let found: FunctionTrigger?
            do {
                found = try endpoint.functionTrigger()
            } catch {
                throw ServiceError(.invalidArgument, "endpoint '\(name)': \(error)")
            }
            guard let found else {
                skipped.append(name)
                continue
            }
            guard case .event(let trigger) = found else {
                if case .taskQueue(let queue) = found, let problem = queue.problems.first {
                    throw ServiceError(.invalidArgument, "endpoint '\(name)': \(problem)")
                }
                requests[name] = found
                continue
            }
            guard let pool = instances[name] else { continue }
            var options = endpoint.functionOptions
            options.concurrency = min(1000, pool.concurrency * pool.maximum)
            let measured = metrics.delivery(of: name)
            try functions.register(name, CloudFunction(trigger: trigger, options: options) { event, context in
                _ = try await deliverInSpan(event, to: name, attempt: context.attempt, deadline: context.deadline,
                    clock: clock, via: pool, tracer: tracer, metrics: measured)
            })
        }
        return (functions, requests, skipped)
    }

    /// ``deliver(_:to:attempt:trace:deadline:clock:via:reaching:)`` as a span of the event's trace
    /// (a child of the span that created it), with the attempt, the function, the event and the
    /// instance, and how it ended; the worker's invocation is its child. Its metrics count it.
    static func deliverInSpan(
        _ event: CloudEvent,
        to function: String,
        attempt: Int,
        deadline: Date,
        clock: any BusClock,
        via instances: FunctionInstances,
        tracer: EmulatorTracer,
        metrics: EmulatorMetrics.FunctionDelivery
    ) async throws -> String? {
        metrics.inFlight.increment()
        if attempt > 1 { metrics.retries.increment() }
        let start = ContinuousClock.now
        defer {
            metrics.inFlight.decrement()
            metrics.duration.recordNanoseconds(Int64((ContinuousClock.now - start) / .nanoseconds(1)))
        }
        return try await tracer.withSpan("deliver \(function)", kind: .producer, parent: tracer.parent(of: event),
            attributes: [
                "faas.name": .string(function), "functions.attempt": .number(Double(attempt)),
                "cloudevents.event_id": .string(event.id), "cloudevents.event_type": .string(event.type),
                "cloudevents.event_source": .string(event.source),
            ])
        { span in
            do {
                let skipped = try await deliver(event, to: function, attempt: attempt, trace: span.context,
                    deadline: deadline, clock: clock, via: instances) { span[attribute: "functions.instance"] = .string($0) }
                span[attribute: "functions.outcome"] = .string(skipped == nil ? "ok" : "skipped")
                (skipped == nil ? metrics.ok : metrics.skipped).increment()
                return skipped
            } catch {
                let cancelled = error is CancellationError || Task.isCancelled
                span[attribute: "functions.outcome"] = .string(cancelled ? "cancelled" : "failed")
                (cancelled ? metrics.cancelled : metrics.failed).increment()
                throw error
            }
        }
    }

    /// Posts an event to an instance of the function with room for it (see ``FunctionInstances``),
    /// with others of the same moment (see ``DeliveryBatcher``); when that worker cannot be
    /// reached it waits for the supervisor to bring it back, until the deadline.
    ///
    /// - Returns: `nil` when the function ran; the worker's reason when it acknowledged the event
    ///   without running it (outside the function's path pattern).
    @discardableResult
    static func deliver(
        _ event: CloudEvent,
        to function: String,
        attempt: Int,
        trace: TraceParent? = nil,
        deadline: Date,
        clock: any BusClock,
        via instances: FunctionInstances,
        reaching: (String) -> Void = { _ in }
    ) async throws -> String? {
        let supervisor = try await instances.acquire()
        defer { instances.release(supervisor) }
        while true {
            let base = try await supervisor.baseURL(until: deadline, clock: clock)
            reaching(base.absoluteString)
            let failure: any Error
            do {
                let answer = try await instances.deliveries.send(event, attempt: attempt, trace: trace, deadline: deadline,
                    to: base)
                if (200..<300).contains(answer.status) {
                    return answer.skipped ? answer.message : nil
                }
                // 503: the worker is shutting down (replaced by a redeploy, or stopping); the
                // event goes to the worker that serves next.
                failure = answer.status == 503
                    ? WorkerShuttingDown() : WorkerError(message: "the worker answered \(answer.status): " + answer.message)
            } catch {
                failure = error
            }
            // No answer at all may mean the worker died mid-request (and another process may
            // now hold its port): once the supervisor confirms it, wait for the restart and
            // send again, within this attempt's deadline.
            guard clock.now < deadline else { throw failure }
            if failure is WorkerShuttingDown, !supervisor.isCurrent(base) { continue }
            if !(failure is WorkerError) || !supervisor.isCurrent(base) {
                guard await supervisor.hasExited(base, grace: .seconds(2)) else { throw failure }
                continue
            }
            throw failure
        }
    }

    /// The worker answered 503: it is shutting down.
    struct WorkerShuttingDown: Error, CustomStringConvertible {
        var description: String { "the worker was shutting down" }
    }
}
