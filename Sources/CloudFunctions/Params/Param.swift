/// A value the function reads at run time and the deploy supplies: from the functions
/// package's `.env`, `.env.<projectId>` and (in the emulator) `.env.local`, else its default.
///
/// ```swift
/// static let welcome = Param.string("WELCOME", default: "Hello", description: "The greeting")
/// static let maxScore = Param.int("MAX_SCORE", default: 1_000_000)
///
/// functions.declare(welcome, maxScore)
/// functions["greet"] = Https.onRequest { request, response, context in
///     response.send(try context.value(welcome))
/// }
/// ```
///
/// Declared params are listed in the manifest (`params`, as firebase-functions writes them);
/// a deploy fails on one without a value or default, or with a value of the wrong type.
public struct Param<Value: ParamValue>: ParamDeclaration, Hashable {
    /// The environment variable's name: uppercase letters, digits and `_`.
    public let name: String
    /// The value used when no `.env` file sets one.
    public let defaultValue: Value?
    /// What the manifest says about it.
    public let spec: ParamSpec

    init(name: String, defaultValue: Value?, description: String?, label: String?, input: JSONValue?) {
        self.name = name
        self.defaultValue = defaultValue
        spec = ParamSpec(name: name, type: Value.paramType, defaultValue: defaultValue?.manifestValue, label: label,
            description: description, input: input)
    }
}

/// What ``FunctionRegistry/declare(_:)`` takes: a ``Param`` or a ``Secret``.
public protocol ParamDeclaration: Sendable {
    /// The manifest's description of it.
    var spec: ParamSpec { get }
}

extension Param where Value == String {
    /// A text param. `pattern` is a regular expression the value must contain a match of
    /// (anchor it with `^…$` for the whole value), `choices` the only values allowed.
    public static func string(
        _ name: String, default defaultValue: String? = nil, description: String? = nil, label: String? = nil,
        pattern: String? = nil, patternMessage: String? = nil, choices: [String]? = nil
    ) -> Param<String> {
        var input: JSONValue?
        if let choices {
            input = ["select": ["options": .array(choices.map { ["value": .string($0)] })]]
        } else if let pattern {
            var text: [String: JSONValue] = ["validationRegex": .string(pattern)]
            if let patternMessage { text["validationErrorMessage"] = .string(patternMessage) }
            input = ["text": .object(text)]
        }
        return Param(name: name, defaultValue: defaultValue, description: description, label: label, input: input)
    }
}

extension Param where Value == Int {
    /// A whole-number param.
    public static func int(_ name: String, default defaultValue: Int? = nil, description: String? = nil, label: String? = nil)
        -> Param<Int>
    {
        Param(name: name, defaultValue: defaultValue, description: description, label: label, input: nil)
    }
}

extension Param where Value == Double {
    /// A number param (`float` in the manifest).
    public static func double(
        _ name: String, default defaultValue: Double? = nil, description: String? = nil, label: String? = nil
    ) -> Param<Double> {
        Param(name: name, defaultValue: defaultValue, description: description, label: label, input: nil)
    }
}

extension Param where Value == Bool {
    /// A yes-or-no param; a `.env` file may write `true`, `false`, `yes`, `no`, `y`, `n`, `1` or `0`.
    public static func bool(_ name: String, default defaultValue: Bool? = nil, description: String? = nil, label: String? = nil)
        -> Param<Bool>
    {
        Param(name: name, defaultValue: defaultValue, description: description, label: label, input: nil)
    }
}

extension Param where Value == [String] {
    /// A list of strings; a `.env` file writes `a,b,c` or a JSON array.
    public static func list(
        _ name: String, default defaultValue: [String]? = nil, description: String? = nil, label: String? = nil
    ) -> Param<[String]> {
        Param(name: name, defaultValue: defaultValue, description: description, label: label, input: nil)
    }
}

/// A secret value: in production, the latest version of the Secret Manager secret of this
/// name; in the emulator, its line in the functions package's `.secret.local`.
///
/// A function reads only the secrets it declares with ``FunctionOption/secrets(_:)``, and
/// only those are given to it where it is deployed. Their values never appear in the
/// manifest, the emulator's logs, console or listings.
public struct Secret: ParamDeclaration, Hashable {
    /// The secret's name, which is also the environment variable the function reads.
    public let name: String
    /// What the manifest says about it.
    public let spec: ParamSpec

    /// A secret called `name`.
    public init(_ name: String, description: String? = nil) {
        self.name = name
        spec = ParamSpec(name: name, type: .secret, defaultValue: nil, label: nil, description: description, input: nil)
    }
}
