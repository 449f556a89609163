import Synchronization

/// Collects what handlers saw, from any task.
final class Calls: Sendable {
    private let entries = Mutex<[String]>([])
    var all: [String] { entries.withLock { $0 } }
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
}

/// What a failing handler throws.
struct HandlerFailure: Error, CustomStringConvertible {
    var description: String { "boom" }
}
