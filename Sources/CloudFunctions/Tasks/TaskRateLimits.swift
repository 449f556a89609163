/// How fast a queue dispatches its tasks, as Cloud Tasks limits it.
public struct TaskRateLimits: Sendable, Hashable {
    /// The most attempts running at once.
    public var maxConcurrentDispatches: Int
    /// The most attempts started per second.
    public var maxDispatchesPerSecond: Double

    /// Creates the limits; the defaults are those `firebase deploy` gives a queue.
    public init(maxConcurrentDispatches: Int = 1_000, maxDispatchesPerSecond: Double = 500) {
        self.maxConcurrentDispatches = maxConcurrentDispatches
        self.maxDispatchesPerSecond = maxDispatchesPerSecond
    }

    /// Why Cloud Tasks would refuse them, in words; empty when they are fine.
    public var problems: [String] {
        var problems: [String] = []
        if !(1...5_000).contains(maxConcurrentDispatches) {
            problems.append("maxConcurrentDispatches must be from 1 to 5000, not \(maxConcurrentDispatches)")
        }
        if !(maxDispatchesPerSecond > 0 && maxDispatchesPerSecond <= 500) {
            problems.append("maxDispatchesPerSecond must be above 0 and at most 500, not \(maxDispatchesPerSecond)")
        }
        return problems
    }
}
