import Foundation

/// The values a running function reads its params and secrets from: the environment the
/// deploy gave its process (or, for functions run in process, the values a test gives).
///
/// Handlers read them through their context: `try context.value(welcome)`,
/// `try context.value(stripeKey)`.
public struct ParamValues: Sendable {
    let environment: [String: String]
    /// The secrets the function declared: the only ones it may read.
    let secrets: [String]
    let functionName: String

    /// The process's environment, read once: a context is made for every invocation, and reading
    /// it each time would copy every variable.
    public static let processEnvironment = ProcessInfo.processInfo.environment

    /// Values from `environment`, for the function `functionName`, which declared `secrets`.
    public init(
        environment: [String: String] = processEnvironment, secrets: [String] = [],
        functionName: String = ""
    ) {
        self.environment = environment
        self.secrets = secrets
        self.functionName = functionName
    }

    /// The values `function`, registered as `name`, may read from `environment`.
    public init(environment: [String: String] = processEnvironment, for function: CloudFunction, named name: String) {
        self.init(environment: environment, secrets: function.options.secrets, functionName: name)
    }

    /// The param's value: the environment's, else its default.
    ///
    /// - Throws: ``ParamError`` when it has neither (the deploy that ran this function did not
    ///   resolve it), or the environment holds something that is not of its type.
    public func value<Value>(_ param: Param<Value>) throws(ParamError) -> Value {
        guard let text = environment[param.name] else {
            if let defaultValue = param.defaultValue { return defaultValue }
            throw ParamError(name: param.name, message: "param \(param.name) has no value and no default: declare it "
                + "with functions.declare(...) and give it a value in the functions package's .env")
        }
        guard let value = Value(environmentValue: text) else {
            throw ParamError(name: param.name, message: "param \(param.name) is not \(Value.paramType.rawValue)")
        }
        return value
    }

    /// The secret's value.
    ///
    /// - Throws: ``ParamError`` when the function did not declare it (with
    ///   `.options(.secrets(...))`) or it has no value.
    public func value(_ secret: Secret) throws(ParamError) -> String {
        guard secrets.contains(secret.name) else {
            throw ParamError(name: secret.name, message: "\(functionName.isEmpty ? "this function" : functionName) did not "
                + "declare the secret \(secret.name): add .options(.secrets(...)) with it")
        }
        guard let value = environment[secret.name] else {
            throw ParamError(name: secret.name, message: "the secret \(secret.name) has no value here")
        }
        return value
    }
}

/// A param or secret a handler cannot read.
public struct ParamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The param's name.
    public var name: String
    /// What is wrong, in words.
    public var message: String

    public var description: String { message }
}

/// A context handlers read params and secrets through.
public protocol ParamReading {
    /// The values the function may read.
    var paramValues: ParamValues { get }
}

extension ParamReading {
    /// The param's value: what the deploy resolved, else its default.
    ///
    /// - Throws: ``ParamError`` when it has no value.
    public func value<Value>(_ param: Param<Value>) throws(ParamError) -> Value {
        try paramValues.value(param)
    }

    /// The secret's value; the function must have declared it with ``FunctionOption/secrets(_:)``.
    ///
    /// - Throws: ``ParamError`` when it is not declared or has no value.
    public func value(_ secret: Secret) throws(ParamError) -> String {
        try paramValues.value(secret)
    }
}

extension EventContext: ParamReading {}
extension RequestContext: ParamReading {}
