import CloudFunctions
import Foundation

/// `context.tasks` for functions running in process beside the emulator: enqueues straight to
/// its queues.
public struct EmulatorTaskQueueClient: TaskQueueClient {
    let service: TaskQueueService

    /// A client of `service`.
    public init(service: TaskQueueService) {
        self.service = service
    }

    public func enqueue(_ task: TaskToEnqueue, to function: String) async throws -> String {
        let address = try TaskQueueAddress(function: function)
        do {
            return try await service.enqueue(queue: address.queue, location: address.location, id: task.id,
                body: task.body, headers: task.requestHeaders,
                scheduleTime: task.scheduleTime(now: service.clock.now), dispatchDeadline: task.dispatchDeadline).id
        } catch let error as ServiceError {
            throw TaskQueueError(error.status, error.message)
        }
    }

    public func delete(_ id: String, from function: String) async throws {
        let address = try TaskQueueAddress(function: function)
        do {
            try await service.delete(queue: address.queue, location: address.location, id: id)
        } catch let error as ServiceError {
            throw TaskQueueError(error.status, error.message)
        }
    }
}
