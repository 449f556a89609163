import Foundation
import CloudFunctions

extension AnalyticsValidation {
    /// Event names reserved for automatically collected events.
    public static let reservedEventNames: Set<String> = [
        "ad_activeview", "ad_click", "ad_exposure", "ad_query", "ad_reward", "adunit_exposure", "app_clear_data",
        "app_exception", "app_remove", "app_store_refund", "app_store_subscription_cancel",
        "app_store_subscription_convert", "app_store_subscription_renew", "app_update", "app_upgrade",
        "dynamic_link_app_open", "dynamic_link_app_update", "dynamic_link_first_open", "error", "firebase_campaign",
        "first_open", "first_visit", "in_app_purchase", "notification_dismiss", "notification_foreground",
        "notification_open", "notification_receive", "os_update", "session_start", "session_start_with_rollout",
        "user_engagement",
    ]

    /// User property names reserved by the SDK.
    public static let reservedUserPropertyNames: Set<String> = [
        "first_open_time", "first_visit_time", "last_deep_link_referrer", "user_id", "first_open_after_install",
    ]
}
