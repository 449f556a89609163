import Foundation

/// The deploy manifest (`specVersion: v1alpha1`) that functions binaries serve at
/// `/__/functions.yaml`: one endpoint per function, each with exactly one trigger.
///
/// Reads what the Firebase SDKs emit (including `null` for options reset to the platform
/// default and the 1st-gen event type names) and writes the same shape.
public struct FunctionsManifest: Sendable, Hashable, Codable {
    /// The manifest format; only `v1alpha1` exists.
    public var specVersion: String
    /// Google APIs the functions need.
    public var requiredAPIs: [RequiredAPI]
    /// The params and secrets the functions read, which a deploy resolves.
    public var params: [ParamSpec]
    /// The functions by name.
    public var endpoints: [String: ManifestEndpoint]

    /// An API a deployment needs enabled.
    public struct RequiredAPI: Sendable, Hashable, Codable {
        /// The API, e.g. `cloudscheduler.googleapis.com`.
        public var api: String
        /// Why it is needed.
        public var reason: String
    }

    /// Creates a manifest.
    public init(endpoints: [String: ManifestEndpoint], requiredAPIs: [RequiredAPI] = [], params: [ParamSpec] = []) {
        self.specVersion = "v1alpha1"
        self.requiredAPIs = requiredAPIs
        self.params = params
        self.endpoints = endpoints
    }

    enum CodingKeys: String, CodingKey { case specVersion, requiredAPIs, params, endpoints }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        specVersion = try c.decode(String.self, forKey: .specVersion)
        guard specVersion == "v1alpha1" else {
            throw DecodingError.dataCorruptedError(
                forKey: .specVersion,
                in: c,
                debugDescription: "unsupported specVersion '\(specVersion)'; expected 'v1alpha1'"
            )
        }
        requiredAPIs = try c.decodeIfPresent([RequiredAPI].self, forKey: .requiredAPIs) ?? []
        params = try c.decodeIfPresent([ParamSpec].self, forKey: .params) ?? []
        endpoints = try c.decode([String: ManifestEndpoint].self, forKey: .endpoints)
    }

    /// Reads a manifest from JSON.
    ///
    /// - Throws: `DecodingError` naming what is wrong (a missing or doubled trigger, a
    ///   missing `eventType`, an unknown `specVersion`, ...).
    public init(json: Data) throws {
        self = try JSONDecoder().decode(FunctionsManifest.self, from: json)
    }

    /// The manifest as JSON with sorted keys.
    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data()
    }
}

extension FunctionRegistry {
    /// The manifest describing the registered functions.
    public func manifest() -> FunctionsManifest {
        var endpoints: [String: ManifestEndpoint] = [:]
        for (name, function) in functions {
            endpoints[name] = ManifestEndpoint(name: name, function: function)
        }
        var apis: [FunctionsManifest.RequiredAPI] = []
        if functions.contains(where: { if case .blocking = $0.function.trigger { true } else { false } }) {
            apis.append(.init(api: "identitytoolkit.googleapis.com", reason: "Needed for auth blocking functions"))
        }
        if functions.contains(where: { if case .taskQueue = $0.function.trigger { true } else { false } }) {
            apis.append(.init(api: "cloudtasks.googleapis.com", reason: "Needed for task queue functions"))
        }
        return FunctionsManifest(endpoints: endpoints, requiredAPIs: apis, params: params)
    }
}
