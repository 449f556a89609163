import Foundation
import FirebaseEmulator
import CloudFunctions


enum FCMTestFixtures {
    /// The send body firebase-admin 7.7.0 (Python) was observed to send, verbatim.
    static let pythonSendBody = """
        {"message":{"android":{"priority":"high","ttl":"3600s"},"apns":{"headers":{"apns-priority":"5",\
        "apns-push-type":"background"},"payload":{"aps":{"content-available":1}}},"data":{"k":"v"},"topic":"news"},\
        "validate_only":true}
        """

    /// The message the pushConfig function sends.
    static let pushConfigMessage = """
        {"topic":"PUSH_RC","data":{"CONFIG_STATE":"STALE"}, "apns":{"headers":{"apns-priority":"5",\
        "apns-push-type":"background"},"payload":{"aps":{"content-available":1}}},"android":{"priority":"high"}}
        """

    /// A well-formed token made by the generator.
    static func token(seed: UInt64) -> String {
        var random = SplitMixRandom(seed: seed)
        return FCMRegistrationToken.generate(using: &random)
    }

    /// The FcmError errorCode in a ServiceError's details.
    static func fcmErrorCode(_ error: ServiceError) -> String? {
        error.details?.arrayValue?.first { $0["@type"]?.stringValue == FCMErrorCode.fcmErrorType }?["errorCode"]?
            .stringValue
    }

    /// The first BadRequest field violation's field.
    static func violatedField(_ error: ServiceError) -> String? {
        error.details?.arrayValue?.first { $0["@type"]?.stringValue == FCMErrorCode.badRequestType }?[
            "fieldViolations"]?.arrayValue?.first?["field"]?.stringValue
    }

    /// Runs `body` and returns the ServiceError it throws.
    static func error(_ body: () throws(ServiceError) -> Void) -> ServiceError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
