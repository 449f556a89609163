import Foundation
import CloudFunctions

/// The Firebase Analytics rules for events, parameters and user properties.
///
/// Strict checks throw `ServiceError` `INVALID_ARGUMENT` with a message naming the field (the
/// emulator's validation mode); ``lenient(_:seenEventNames:)`` instead says what the device SDK
/// would do (drop, trim, and which `firebase_error` code it logs). Lengths are counted in UTF-16
/// code units, as the Android and Apple SDKs count string length.
package enum AnalyticsValidation {
    /// Longest event or parameter name.
    public static let maxNameLength = 40
    /// Longest user property name.
    public static let maxUserPropertyNameLength = 24
    /// Most parameters per event.
    public static let maxParameters = 25
    /// Longest string parameter value.
    public static let maxParameterValueLength = 100
    /// Longest user property value.
    public static let maxUserPropertyValueLength = 36
    /// Most distinct event names per app instance.
    public static let maxDistinctEventNames = 500
    /// Most user properties per project.
    public static let maxUserProperties = 25
    /// Reserved name prefixes.
    public static let reservedPrefixes = ["firebase_", "google_", "ga_"]

    /// Why a name breaks the naming rules, or `nil` when it is fine.
    ///
    /// - Parameters:
    ///   - name: an event, parameter or user property name.
    ///   - maxLength: the length limit.
    ///   - reserved: names that are reserved outright.
    public static func nameProblem(_ name: String, maxLength: Int, reserved: Set<String> = []) -> String? {
        let length = name.utf16.count
        guard (1...maxLength).contains(length) else { return "it must be 1 to \(maxLength) characters long" }
        let scalars = Array(name.unicodeScalars)
        guard let first = scalars.first, isASCIILetter(first),
            scalars.allSatisfy({ isASCIILetter($0) || ("0"..."9").contains($0) || $0 == "_" })
        else { return "it must start with a letter and contain only letters, digits and underscores" }
        if let prefix = reservedPrefixes.first(where: { name.hasPrefix($0) }) {
            return "the prefix \"\(prefix)\" is reserved"
        }
        if reserved.contains(name) { return "the name is reserved" }
        return nil
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }

    /// Checks an event name.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming `field`.
    public static func validateEventName(_ name: String, field: String = "name") throws(ServiceError) {
        if let problem = nameProblem(name, maxLength: maxNameLength, reserved: reservedEventNames) {
            throw ServiceError(.invalidArgument, "Invalid event name \"\(name)\" at '\(field)': \(problem).")
        }
    }

    /// Checks a parameter name.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming `field`.
    public static func validateParameterName(_ name: String, field: String) throws(ServiceError) {
        if let problem = nameProblem(name, maxLength: maxNameLength) {
            throw ServiceError(.invalidArgument, "Invalid parameter name \"\(name)\" at '\(field)': \(problem).")
        }
    }

    /// Checks a parameter value: a string of at most 100 characters or a finite number.
    ///
    /// - Throws: `ServiceError` `INVALID_ARGUMENT` naming `field`.
    public static func validateParameterValue(_ value: JSONValue, field: String) throws(ServiceError) {
        switch value {
        case .string(let text) where text.utf16.count > maxParameterValueLength:
            throw ServiceError(.invalidArgument, 
                "Parameter value too long at '\(field)': \(text.utf16.count) characters, the limit is "
                    + "\(maxParameterValueLength).")
        case .string:
            return
        case .number(let number) where number.isFinite:
            return
        default:
            throw ServiceError(.invalidArgument, 
                "Invalid parameter value at '\(field)': only strings, integers and doubles are allowed.")
        }
    }
}
