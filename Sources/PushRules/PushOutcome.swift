import Foundation
import RegistryCore

/// What one push service answer means, in domain terms: the first of the three words for what
/// happened to a push (then `DeliveryResult`, one push's attempts; then the engine's `PushResult`,
/// one device's line). Every APNs and FCM answer is sorted into exactly one of these by
/// `APNsAnswer.outcome` and `FCMAnswer.outcome`, so call sites never inspect statuses or reason
/// strings themselves. An `Error` too: a step before the request itself (getting an FCM access
/// token) that already decides the attempt throws its outcome.
public enum PushOutcome: Error, Sendable, Equatable {
    /// Accepted. `serviceID` is the `apns-id` APNs echoed or the FCM message name.
    case sent(serviceID: String?)
    /// The token is dead or wrong, ready for `DeviceStore.applyFeedback`: the same input a
    /// `POST /v1/feedback` report gives, so both paths share `FeedbackClassifier`'s policy.
    /// `reason` is as the service spelled it (`Unregistered`, `UNREGISTERED`, `BadDeviceToken`);
    /// `observedAt` is when the service says the token stopped being valid (APNs' 410
    /// `timestamp`, otherwise the moment the answer arrived): a device registered after it is kept.
    case tokenInvalid(reason: String, policy: FeedbackPolicy, observedAt: Date)
    /// The message itself is bad (too large, bad topic, bad field): no retry, no device touched.
    case rejected(reason: String)
    /// Worth another attempt (429, 5xx, UNAVAILABLE, INTERNAL), after at least `retryAfter` when
    /// the service said so.
    case transient(reason: String, retryAfter: Duration?)
    /// The provider token or access token has expired: renew it, then send again once.
    case credentialExpired(reason: String)
    /// The service refuses the provider's credentials. No device is touched and the provider is
    /// marked unhealthy; retrying with the same credentials cannot help.
    case providerAuthFailure(reason: String)

    /// `tokenInvalid` when `FeedbackClassifier` says `reason` condemns the token; nil otherwise.
    static func condemning(_ reason: FeedbackReason, spelled: String, observedAt: Date) -> PushOutcome? {
        let policy = FeedbackClassifier.policy(for: reason)
        guard policy != .ignore else { return nil }
        return .tokenInvalid(reason: spelled, policy: policy, observedAt: observedAt)
    }
}
