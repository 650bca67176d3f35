/// Decides what a push service's failure reason means for the token.
///
/// | reason (service)                                          | policy                 |
/// |-----------------------------------------------------------|------------------------|
/// | Unregistered, ExpiredToken (apns); UNREGISTERED (fcm)     | deleteIfNotSeenSince   |
/// | BadDeviceToken, DeviceTokenNotForTopic (apns);            | disable                |
/// | SENDER_ID_MISMATCH, legacy InvalidRegistration (fcm)      |                        |
/// | anything else (PayloadTooLarge, BadTopic, TooManyRequests,| ignore                 |
/// | INVALID_ARGUMENT, unknown)                                |                        |
///
/// FCM's `INVALID_ARGUMENT` is ignored on purpose: FCM returns it for bad payloads as well as bad
/// tokens, so it cannot condemn a token on its own.
public enum FeedbackClassifier {
    public static func action(for reason: String, service: PushService) -> FeedbackPolicy {
        policy(for: FeedbackReason(reason, service: service))
    }

    public static func policy(for reason: FeedbackReason) -> FeedbackPolicy {
        switch reason {
        case .unregistered, .expiredToken: .deleteIfNotSeenSince
        case .badDeviceToken, .deviceTokenNotForTopic, .senderIDMismatch, .invalidRegistration: .disable
        case .other: .ignore
        }
    }
}
