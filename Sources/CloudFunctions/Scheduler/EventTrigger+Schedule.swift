extension Schedule {
    /// What tells schedules apart: the time zone and the expression, as written.
    package var key: String { "\(timeZoneIdentifier) \(expression)" }

    /// The schedules of these triggers, each once however many functions share it.
    package static func deployed(in triggers: [EventTrigger]) -> [Schedule] {
        var seen = Set<String>()
        return triggers.compactMap(\.schedule).filter { seen.insert($0.key).inserted }
    }
}

extension EventTrigger {
    /// The schedule of a scheduled function's trigger (``Scheduler``); `nil` for any other
    /// trigger, or a schedule that cannot be read.
    public var schedule: Schedule? {
        guard eventType == Scheduler.eventType, let expression = filters[Scheduler.scheduleAttribute] else { return nil }
        return try? Schedule(expression, timeZone: filters[Scheduler.timeZoneAttribute] ?? Scheduler.defaultTimeZone)
    }
}
