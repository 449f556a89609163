import CloudEvents
import Foundation

/// One logged Analytics event: what `Analytics.event(_:).onLog` handlers receive.
///
/// Decoded from the wire firebase-functions reads: `{"eventDim": [{"name", "params": {k: {"stringValue" |
/// "intValue" | "doubleValue" | "floatValue"}}, "timestampMicros", "date"}], "userDim": {...}}`. Parameter
/// values are unwrapped to plain strings and numbers, as the SDK does; integers may arrive as text or numbers.
public struct AnalyticsLogEvent: Sendable, Hashable, Codable {
    /// The event name, e.g. `purchase`.
    public var name: String
    /// The parameters, unwrapped: strings and numbers.
    public var params: [String: JSONValue]
    /// When the event was logged.
    public var logTime: Date
    /// The day the event is reported under, `YYYYMMDD` (UTC).
    public var reportingDate: String
    /// Who logged it: the app instance, the user id and the user properties.
    public var user: AnalyticsUserDimensions?

    /// Creates an event; `reportingDate` defaults to the UTC day of `logTime`.
    public init(
        name: String,
        params: [String: JSONValue] = [:],
        logTime: Date,
        reportingDate: String? = nil,
        user: AnalyticsUserDimensions? = nil
    ) {
        self.name = name
        self.params = params
        self.logTime = logTime
        self.reportingDate = reportingDate ?? AnalyticsLogEvent.reportingDate(of: logTime)
        self.user = user
    }

    /// The `YYYYMMDD` UTC day of a time.
    public static func reportingDate(of time: Date) -> String {
        String(RFC3339Timestamp.string(from: time).prefix(10).filter { $0 != "-" })
    }

    public init(from decoder: any Decoder) throws {
        let wire = try JSONValue(from: decoder)
        guard let dimension = wire["eventDim"]?.arrayValue?.first, let name = dimension["name"]?.stringValue else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "expected eventDim[0].name")
            )
        }
        self.name = name
        params = (dimension["params"]?.objectValue ?? [:]).compactMapValues(Self.unwrap)
        let micros = Self.integer(dimension["timestampMicros"]) ?? 0
        logTime = Date(timeIntervalSince1970: Double(micros) / 1_000_000)
        reportingDate = dimension["date"]?.stringValue ?? Self.reportingDate(of: logTime)
        user = try wire["userDim"].map { try AnalyticsUserDimensions(wire: $0) }
    }

    public func encode(to encoder: any Encoder) throws {
        let micros = Int64((logTime.timeIntervalSince1970 * 1_000_000).rounded())
        let dimension: JSONValue = [
            "name": .string(name),
            "params": .object(params.mapValues(Self.wrap)),
            "timestampMicros": .string(String(micros)),
            "date": .string(reportingDate),
        ]
        var wire: [String: JSONValue] = ["eventDim": [dimension]]
        wire["userDim"] = user?.wire
        try JSONValue.object(wire).encode(to: encoder)
    }

    /// `{"stringValue": s}`, `{"intValue": "n"}` for integral numbers, else `{"doubleValue": d}`.
    static func wrap(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let number) where number.rounded() == number && abs(number) < 9.2e18:
            ["intValue": .string(String(Int64(number)))]
        case .number:
            ["doubleValue": value]
        case .string:
            ["stringValue": value]
        default:
            ["stringValue": .string(value.serialized())]
        }
    }

    static func unwrap(_ value: JSONValue) -> JSONValue? {
        if let text = value["stringValue"]?.stringValue { return .string(text) }
        if let integer = integer(value["intValue"]) { return .number(Double(integer)) }
        for key in ["doubleValue", "floatValue"] {
            if let number = value[key]?.numberValue ?? value[key]?.stringValue.flatMap(Double.init) {
                return .number(number)
            }
        }
        return nil
    }

    /// An int64 given as a JSON number or as decimal text.
    static func integer(_ value: JSONValue?) -> Int64? {
        if let text = value?.stringValue { return Int64(text) }
        guard let number = value?.numberValue, number.isFinite, abs(number) < 9.2e18 else { return nil }
        return Int64(number)
    }
}
