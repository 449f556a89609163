import Foundation
import CloudFunctions

/// The delivery priority of an Android message (`AndroidConfig.priority`).
///
/// Decoding accepts any case (`HIGH`, `high`); encoding writes the lowercase form the Admin SDKs
/// send.
public enum FCMAndroidPriority: String, Sendable, Hashable, Codable, CaseIterable {
    /// Normal priority: may be delayed to save battery (maps to APNs priority 5).
    case normal
    /// High priority: delivered immediately and may wake the device (maps to APNs priority 10).
    case high
}
