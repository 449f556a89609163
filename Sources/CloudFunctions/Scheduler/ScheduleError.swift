/// Why a schedule or its time zone cannot be read.
public struct ScheduleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in one sentence.
    public var message: String
    public var description: String { message }

    init(_ message: String) { self.message = message }
}
