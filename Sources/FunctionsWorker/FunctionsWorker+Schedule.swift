import CloudEvents
import CloudFunctions
import Foundation
import HTTPTypes

extension FunctionsWorker {
    /// `X-CloudScheduler: true` on Cloud Scheduler's requests.
    static let cloudSchedulerHeader = HTTPField.Name("X-CloudScheduler")!
    /// The job that fired, on Cloud Scheduler's requests.
    static let cloudSchedulerJobHeader = HTTPField.Name("X-CloudScheduler-JobName")!
    /// The moment the firing was scheduled for (RFC 3339), on Cloud Scheduler's requests.
    static let cloudSchedulerTimeHeader = HTTPField.Name("X-CloudScheduler-ScheduleTime")!
    /// The type of a Knative PingSource's events.
    static let pingEventType = "dev.knative.sources.ping"

    /// A scheduled function's firing as a scheduler sends it, as the event the function takes:
    /// Cloud Scheduler's POST (`X-CloudScheduler` headers, no CloudEvent), or a Knative
    /// PingSource's `dev.knative.sources.ping` CloudEvent (`event`). `nil` for anything else, or
    /// a function that is not scheduled.
    static func firing(for trigger: EventTrigger, headers: HTTPFields, event: CloudEvent?) -> CloudEvent? {
        // Asked of every event: what is cheap to check comes first.
        if let event {
            guard event.type == pingEventType, let schedule = trigger.schedule else { return nil }
            return .scheduled(schedule, at: event.time ?? Date(), project: project,
                jobName: event.source.split(separator: "/").last.map(String.init))
        }
        guard headers[cloudSchedulerHeader]?.lowercased() == "true", let schedule = trigger.schedule else { return nil }
        let time = headers[cloudSchedulerTimeHeader].flatMap { RFC3339Timestamp.date(from: $0) } ?? Date()
        return .scheduled(schedule, at: time, firedAt: Date(), project: project, jobName: headers[cloudSchedulerJobHeader])
    }

    /// The project a firing's source names.
    private static var project: String {
        let environment = ProcessInfo.processInfo.environment
        return environment["GOOGLE_CLOUD_PROJECT"] ?? environment["GCLOUD_PROJECT"] ?? "-"
    }
}
