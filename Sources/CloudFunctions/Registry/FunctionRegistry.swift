/// The named functions of an app, collected from authors' code and plugins.
///
/// ```swift
/// var functions = FunctionRegistry()
/// functions.use(PushConfig(topic: "PUSH_RC"))
/// functions["greet"] = Auth.user().onCreate { user, context in ... }
/// try functions.validate()
/// ```
/// Assigning through the subscript never fails on the spot; problems (a duplicate or
/// malformed name, a malformed path pattern, unusable options) are kept and reported
/// together by ``validate()``, which the bus and the worker call before serving.
/// ``register(_:_:)`` reports them at once instead.
public struct FunctionRegistry: Sendable {
    private var functionsByName: [String: CloudFunction] = [:]
    /// The registered names, in registration order.
    public private(set) var names: [String] = []
    private var problems: [RegistryError.Problem] = []
    /// The params and secrets declared with ``declare(_:)``, in declaration order.
    public private(set) var declaredParams: [ParamSpec] = []

    /// An empty registry.
    public init() {}

    /// The function registered under `name`. Assigning a name that is taken records a
    /// duplicate-name problem and keeps the first function; assigning `nil` removes it.
    public subscript(name: String) -> CloudFunction? {
        get { functionsByName[name] }
        set {
            guard let newValue else {
                functionsByName[name] = nil
                names.removeAll { $0 == name }
                return
            }
            problems += add(name, newValue)
        }
    }

    /// Registers a function, failing at once on any problem.
    ///
    /// - Throws: ``RegistryError`` for a duplicate or malformed name or a malformed trigger.
    public mutating func register(_ name: String, _ function: CloudFunction) throws(RegistryError) {
        let found = add(name, function)
        if !found.isEmpty { throw RegistryError(problems: found) }
    }

    /// Lets a plugin register its functions.
    public mutating func use(_ plugin: some FunctionsPlugin) {
        plugin.register(&self)
    }

    /// Records a problem a plugin found in its own configuration (a value it cannot use), for
    /// ``validate()`` to report with the others.
    public mutating func reportProblem(_ message: String, function: String) {
        problems.append(.init(function: function, code: .invalidConfiguration, message: message))
    }

    /// Declares params (and secrets) the functions read: the manifest lists them, and a deploy
    /// resolves each from the `.env` files or its default, failing when it can do neither.
    /// A secret a function names in ``FunctionOption/secrets(_:)`` needs no declaration here.
    public mutating func declare(_ params: any ParamDeclaration...) {
        for param in params.map(\.spec) {
            if let problem = ParamSpec.problem(withKey: param.name) {
                problems.append(.init(function: param.name, code: .invalidConfiguration, message: problem))
            } else if let known = declaredParams.first(where: { $0.name == param.name }) {
                if known != param {
                    problems.append(.init(function: param.name, code: .invalidConfiguration,
                        message: "the param \(param.name) is declared twice, differently"))
                }
            } else if let defaultValue = param.defaultEnvironmentValue,
                case .failure(let error) = param.environmentValue(of: defaultValue)
            {
                problems.append(.init(function: param.name, code: .invalidConfiguration, message: "default: \(error)"))
            } else {
                declaredParams.append(param)
            }
        }
    }

    /// What the manifest lists: the declared params, then each secret a function reads that
    /// was not declared.
    public var params: [ParamSpec] {
        var params = declaredParams
        for (_, function) in functions {
            for secret in function.options.secrets where !params.contains(where: { $0.name == secret }) {
                params.append(Secret(secret).spec)
            }
        }
        return params
    }

    /// The registered functions with their names, in registration order.
    public var functions: [(name: String, function: CloudFunction)] {
        names.map { ($0, functionsByName[$0]!) }
    }

    /// Whether no function is registered.
    public var isEmpty: Bool { names.isEmpty }

    /// Checks everything registered so far.
    ///
    /// - Throws: ``RegistryError`` listing every problem found.
    public func validate() throws(RegistryError) {
        if !problems.isEmpty { throw RegistryError(problems: problems) }
    }

    /// Keeps only the named functions (as `deploy --only` does).
    ///
    /// - Throws: ``RegistryError`` when a name is not registered.
    public func only(_ selected: [String]) throws(RegistryError) -> FunctionRegistry {
        let unknown = selected.filter { functionsByName[$0] == nil }
        guard unknown.isEmpty else {
            throw RegistryError(problems: unknown.map {
                .init(function: $0, code: .unknownFunction, message: "no function named '\($0)' is registered")
            })
        }
        var subset = self
        subset.names = names.filter(selected.contains)
        subset.functionsByName = functionsByName.filter { selected.contains($0.key) }
        return subset
    }

    private mutating func add(_ name: String, _ function: CloudFunction) -> [RegistryError.Problem] {
        var found: [RegistryError.Problem] = []
        if !FunctionRegistry.isValidName(name) {
            found.append(.init(
                function: name,
                code: .invalidName,
                message: "'\(name)' is not a valid function name: use 1 to 63 letters, digits, '-' or '_', "
                    + "starting with a letter"
            ))
        }
        if functionsByName[name] != nil {
            found.append(.init(
                function: name,
                code: .duplicateName,
                message: "a function named '\(name)' is already registered"
            ))
        }
        for problem in function.problems {
            found.append(.init(function: name, code: .invalidTrigger, message: problem))
        }
        if found.isEmpty {
            functionsByName[name] = function
            names.append(name)
        }
        return found
    }

    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63, (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first)
        else { return false }
        return bytes.allSatisfy {
            (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D
                || $0 == 0x5F
        }
    }
}
