/// Functions that cannot be registered, with every problem found.
public struct RegistryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One problem with one function.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The function's name.
        public var function: String
        /// The kind of problem.
        public var code: Code
        /// What is wrong, in words.
        public var message: String

        public var description: String { "\(function): \(message)" }

        package init(function: String, code: Code, message: String) {
            self.function = function
            self.code = code
            self.message = message
        }
    }

    /// The kind of problem.
    public enum Code: String, Sendable, Hashable {
        /// The name is taken.
        case duplicateName
        /// The name is not a valid function name.
        case invalidName
        /// The trigger or the options are malformed.
        case invalidTrigger
        /// A selected name is not registered.
        case unknownFunction
        /// A plugin was configured with something it cannot use.
        case invalidConfiguration
    }

    /// Every problem found.
    public var problems: [Problem]

    package init(problems: [Problem]) {
        self.problems = problems
    }

    public var description: String {
        problems.map(\.description).joined(separator: "; ")
    }
}
