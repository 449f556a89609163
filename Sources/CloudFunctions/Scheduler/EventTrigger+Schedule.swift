extension EventTrigger {
    /// The schedule of a scheduled function's trigger (``Scheduler``); `nil` for any other
    /// trigger, or a schedule that cannot be read.
    public var schedule: Schedule? {
        guard eventType == Scheduler.eventType, let expression = filters[Scheduler.scheduleAttribute] else { return nil }
        return try? Schedule(expression, timeZone: filters[Scheduler.timeZoneAttribute] ?? Scheduler.defaultTimeZone)
    }
}
