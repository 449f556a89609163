import Logging

/// Cloud Logging's severities, lowest first, and the swift-log levels they stand for: what a
/// worker writes in its structured lines, and what the emulator reads back from them.
package enum LogSeverity: String, CaseIterable, Sendable {
    case `default` = "DEFAULT", debug = "DEBUG", info = "INFO", notice = "NOTICE", warning = "WARNING"
    case error = "ERROR", critical = "CRITICAL", alert = "ALERT", emergency = "EMERGENCY"

    /// The severity of a swift-log level.
    package init(_ level: Logger.Level) {
        switch level {
        case .trace, .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        case .critical: self = .critical
        }
    }

    /// The swift-log level a line of this severity is logged at.
    package var level: Logger.Level {
        switch self {
        case .default, .info: .info
        case .debug: .debug
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical, .alert, .emergency: .critical
        }
    }

    /// Its place in the order, from 0 for `DEFAULT`.
    package var rank: Int { Self.allCases.firstIndex(of: self)! }
}
