import Foundation

extension ManifestEndpoint: Codable {
    enum CodingKeys: String, CodingKey {
        case entryPoint, platform, region, availableMemoryMb, timeoutSeconds, concurrency, minInstances
        case maxInstances, labels, eventTrigger, deliveryPolicy, adminServices, secretEnvironmentVariables
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        entryPoint = try c.decodeIfPresent(String.self, forKey: .entryPoint) ?? ""
        platform = try c.decodeIfPresent(String.self, forKey: .platform)
        region = try c.decodeIfPresent([String].self, forKey: .region)
        availableMemoryMb = try c.decodeIfPresent(Int.self, forKey: .availableMemoryMb)
        timeoutSeconds = try c.decodeIfPresent(Int.self, forKey: .timeoutSeconds)
        concurrency = try c.decodeIfPresent(Int.self, forKey: .concurrency)
        minInstances = try c.decodeIfPresent(Int.self, forKey: .minInstances)
        maxInstances = try c.decodeIfPresent(Int.self, forKey: .maxInstances)
        labels = try c.decodeIfPresent([String: String].self, forKey: .labels) ?? [:]
        eventTrigger = try c.decodeIfPresent(EventTriggerSpec.self, forKey: .eventTrigger)
        deliveryPolicy = try c.decodeIfPresent(DeliveryPolicySpec.self, forKey: .deliveryPolicy)
        adminServices = try c.decodeIfPresent([AdminService].self, forKey: .adminServices)
        secretEnvironmentVariables = try c.decodeIfPresent([SecretEnvironmentVariable].self,
            forKey: .secretEnvironmentVariables) ?? []
        let raw = try decoder.container(keyedBy: AnyCodingKey.self)
        otherTriggers = [:]
        for key in ManifestEndpoint.otherTriggerKeys {
            if let value = try raw.decodeIfPresent(JSONValue.self, forKey: AnyCodingKey(key)), !value.isNull {
                otherTriggers[key] = value
            }
        }
        let triggerCount = otherTriggers.count + (eventTrigger == nil ? 0 : 1)
        guard triggerCount == 1 else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: triggerCount == 0
                    ? "endpoint has no trigger"
                    : "endpoint has \(triggerCount) triggers; exactly one is allowed"
            ))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entryPoint, forKey: .entryPoint)
        try c.encodeIfPresent(platform, forKey: .platform)
        try c.encodeIfPresent(region, forKey: .region)
        // null resets an option to the platform default, so it is written explicitly.
        try c.encode(availableMemoryMb, forKey: .availableMemoryMb)
        try c.encode(timeoutSeconds, forKey: .timeoutSeconds)
        try c.encode(concurrency, forKey: .concurrency)
        try c.encode(minInstances, forKey: .minInstances)
        try c.encode(maxInstances, forKey: .maxInstances)
        try c.encode(labels, forKey: .labels)
        try c.encodeIfPresent(eventTrigger, forKey: .eventTrigger)
        try c.encodeIfPresent(deliveryPolicy, forKey: .deliveryPolicy)
        try c.encodeIfPresent(adminServices, forKey: .adminServices)
        if !secretEnvironmentVariables.isEmpty {
            try c.encode(secretEnvironmentVariables, forKey: .secretEnvironmentVariables)
        }
        var raw = encoder.container(keyedBy: AnyCodingKey.self)
        for (key, value) in otherTriggers {
            try raw.encode(value, forKey: AnyCodingKey(key))
        }
    }
}
