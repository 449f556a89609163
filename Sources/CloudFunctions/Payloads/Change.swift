/// The state of something before and after an event changed it.
public struct Change<T: Sendable>: Sendable {
    /// The state before the change.
    public var before: T
    /// The state after the change.
    public var after: T

    /// Creates a change.
    public init(before: T, after: T) {
        self.before = before
        self.after = after
    }
}

extension Change: Equatable where T: Equatable {}
extension Change: Hashable where T: Hashable {}
