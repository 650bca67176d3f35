import Foundation
import RegistryCore

/// A push service's verdict on a token, ready for `DeviceStore.applyFeedback`: the same input a
/// `POST /v1/feedback` report produces, so both paths share `FeedbackClassifier`'s policy.
public struct TokenVerdict: Sendable, Equatable {
    /// The reason as the service spelled it (`Unregistered`, `UNREGISTERED`, `BadDeviceToken`).
    public let reason: String
    public let policy: FeedbackPolicy
    /// When the service says the token stopped being valid: APNs' 410 `timestamp`, otherwise the
    /// moment the answer arrived. A device registered after it is kept.
    public let observedAt: Date

    init(reason: String, policy: FeedbackPolicy, observedAt: Date) {
        self.reason = reason
        self.policy = policy
        self.observedAt = observedAt
    }

    /// Nil when `FeedbackClassifier` says the reason does not condemn the token.
    init?(reason: FeedbackReason, spelled: String, observedAt: Date) {
        let policy = FeedbackClassifier.policy(for: reason)
        guard policy != .ignore else { return nil }
        self.init(reason: spelled, policy: policy, observedAt: observedAt)
    }
}
