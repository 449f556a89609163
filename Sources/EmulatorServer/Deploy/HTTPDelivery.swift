import CloudEvents
import CloudFunctions
import FirebaseEmulator
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds the functions of a deployed manifest: each one delivers its events to the worker
/// process over HTTP, as a binary-mode CloudEvent (`POST /{name}`), the way Cloud Run and
/// Eventarc do. A 2xx answer is success; anything else, or no answer before the attempt's
/// deadline, is a failure the bus retries per the function's options.
enum HTTPDelivery {
    /// The registry of a manifest's event-triggered endpoints, delivering through `supervisor`.
    ///
    /// - Throws: `INVALID_ARGUMENT` for a malformed trigger; endpoints without an event trigger
    ///   (HTTPS, schedules) are skipped and returned in `skipped`.
    static func registry(
        manifest: FunctionsManifest,
        supervisor: WorkerSupervisor
    ) throws -> (functions: FunctionRegistry, skipped: [String]) {
        var functions = FunctionRegistry()
        var skipped: [String] = []
        for (name, endpoint) in manifest.endpoints.sorted(by: { $0.key < $1.key }) {
            let trigger: EventTrigger?
            do {
                trigger = try endpoint.trigger()
            } catch {
                throw ServiceError.invalidArgument("endpoint '\(name)': \(error)")
            }
            guard let trigger else {
                skipped.append(name)
                continue
            }
            try functions.register(name, CloudFunction(trigger: trigger, options: endpoint.functionOptions) {
                event, context in
                try await deliver(
                    event, to: name, attempt: context.attempt, deadline: context.deadline, via: supervisor)
            })
        }
        return (functions, skipped)
    }

    /// Posts an event to the worker; when the worker cannot be reached it waits for the
    /// supervisor to bring it back, until the deadline.
    ///
    /// - Returns: `nil` when the function ran; the worker's reason when it acknowledged the event
    ///   without running it (outside the function's path pattern).
    @discardableResult
    static func deliver(
        _ event: CloudEvent,
        to function: String,
        attempt: Int,
        deadline: Date,
        via supervisor: WorkerSupervisor
    ) async throws -> String? {
        let message = event.binaryHTTPMessage()
        while true {
            let base = try await supervisor.baseURL(until: deadline)
            var request = URLRequest(url: base.appendingPathComponent(function))
            request.httpMethod = "POST"
            request.timeoutInterval = max(1, deadline.timeIntervalSinceNow)
            for field in message.headers { request.setValue(field.value, forHTTPHeaderField: field.name) }
            request.setValue(String(attempt), forHTTPHeaderField: "ce-attempt")
            request.httpBody = message.body
            let failure: any Error
            do {
                let (data, response) = try await URLSession.shared.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                if (200..<300).contains(status) {
                    guard (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Functions-Skipped") == "true"
                    else { return nil }
                    return String(decoding: data.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                }
                let text = String(decoding: data.prefix(500), as: UTF8.self)
                failure = WorkerError(
                    message: "the worker answered \(status): " + text.trimmingCharacters(in: .whitespacesAndNewlines)
                )
            } catch {
                failure = error
            }
            // No answer at all may mean the worker died mid-request (and another process may
            // now hold its port): once the supervisor confirms it, wait for the restart and
            // send again, within this attempt's deadline.
            guard Date() < deadline else { throw failure }
            if !(failure is WorkerError) || !supervisor.isCurrent(base) {
                guard await supervisor.hasExited(base, grace: .seconds(2)) else { throw failure }
                continue
            }
            throw failure
        }
    }
}
