/// The value of an extension attribute.
///
/// CloudEvents types Binary, URI, URI-reference and Timestamp travel as strings; Boolean and
/// Integer keep their JSON types in the JSON format and become strings in HTTP headers.
public enum CloudEventAttributeValue: Sendable, Hashable, CustomStringConvertible,
    ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral
{
    case string(String)
    case integer(Int)
    case boolean(Bool)

    /// The canonical string form, as used in HTTP headers.
    public var canonicalString: String {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .boolean(let value): value ? "true" : "false"
        }
    }

    public var description: String { canonicalString }

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}
