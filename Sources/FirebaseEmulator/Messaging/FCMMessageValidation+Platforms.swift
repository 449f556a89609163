import Foundation
import CloudFunctions

extension FCMMessageValidation {
    /// Data keys FCM reserves.
    public static func isReservedDataKey(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key == "gcm" || key.hasPrefix("google.") || key.hasPrefix("gcm.")
    }

    /// Rejects reserved data keys.
    static func validateData(_ data: [String: String]?, field: String) throws(ServiceError) {
        guard let data else { return }
        for key in data.keys.sorted() where isReservedDataKey(key) {
            throw FCMErrorCode.invalidArgument(
                "Invalid data payload key \"\(key)\": \"from\", \"message_type\", \"gcm\" and keys starting with "
                    + "\"google.\" or \"gcm.\" are reserved.", field: field)
        }
    }

    /// Checks an analytics label against `^[a-zA-Z0-9-_.~%]{1,50}$`.
    static func validateLabel(_ label: String?, field: String) throws(ServiceError) {
        guard let label else { return }
        guard (1...50).contains(label.unicodeScalars.count), label.unicodeScalars.allSatisfy(FCMTopicName.isAllowed)
        else {
            throw FCMErrorCode.invalidArgument(
                "Invalid analytics label \"\(label)\": it must match ^[a-zA-Z0-9-_.~%]{1,50}$.", field: field)
        }
    }

    func validateAndroid(_ android: AndroidConfig) throws(ServiceError) {
        try Self.validateData(android.data, field: "message.android.data")
        if let ttl = android.ttl {
            guard let duration = FCMDuration(ttl), !duration.isNegative,
                duration <= FCMDuration(seconds: limits.maxTTLSeconds)
            else {
                throw FCMErrorCode.invalidArgument(
                    "Invalid android.ttl \"\(ttl)\": it must be a duration from 0s to \(limits.maxTTLSeconds)s.",
                    field: "message.android.ttl")
            }
        }
        if let color = android.notification?.color {
            let digits = color.dropFirst()
            guard color.hasPrefix("#"), digits.count == 6, digits.allSatisfy(\.isHexDigit) else {
                throw FCMErrorCode.invalidArgument(
                    "Invalid android.notification.color \"\(color)\": it must be in the form #RRGGBB.",
                    field: "message.android.notification.color")
            }
        }
        try Self.validateLabel(android.fcmOptions?.analyticsLabel, field: "message.android.fcm_options.analytics_label")
    }

    static func validateApns(_ apns: APNSConfig) throws(ServiceError) {
        if let priority = apns.headers["apns-priority"], priority != "5", priority != "10" {
            throw FCMErrorCode.invalidArgument(
                "Invalid apns-priority header \"\(priority)\": it must be \"5\" or \"10\".",
                field: "message.apns.headers")
        }
        if let aps = apns.payload?["aps"], aps.objectValue == nil {
            throw FCMErrorCode.invalidArgument(
                "Invalid apns.payload: \"aps\" must be a dictionary.", field: "message.apns.payload")
        }
        try validateLabel(apns.fcmOptions?.analyticsLabel, field: "message.apns.fcm_options.analytics_label")
    }

    static func validateWebpush(_ webpush: WebpushConfig) throws(ServiceError) {
        try validateData(webpush.data, field: "message.webpush.data")
        if let link = webpush.fcmOptions?.link, !link.lowercased().hasPrefix("https://") {
            throw FCMErrorCode.invalidArgument(
                "Invalid webpush.fcm_options.link \"\(link)\": it must be an HTTPS URL.",
                field: "message.webpush.fcm_options.link")
        }
        try validateLabel(webpush.fcmOptions?.analyticsLabel, field: "message.webpush.fcm_options.analytics_label")
    }
}
