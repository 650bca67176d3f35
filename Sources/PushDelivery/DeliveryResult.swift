import Foundation
import RegistryCore

/// The final word on one push after all its attempts, transport failures included: the second
/// of the three words for what happened to a push (after `PushOutcome`, one answer; before the
/// engine's `PushResult`, one device's line).
public struct DeliveryResult: Sendable, Equatable {
    public enum Status: Sendable, Equatable {
        /// Accepted; the `apns-id` or FCM message name.
        case sent(serviceID: String?)
        /// The token is dead or wrong; apply this to the registry (`PushOutcome.tokenInvalid`).
        case tokenInvalid(reason: String, policy: FeedbackPolicy, observedAt: Date)
        /// The message was refused; no retry can help.
        case rejected(reason: String)
        /// The provider's credentials are refused: mark the provider unhealthy.
        case authFailed(reason: String)
        /// Transient failures used up the attempts, or an attempt got no answer and could not
        /// be resent without risking a double (see `maybeDelivered`).
        case failed(reason: String)
        /// The deadline came before a final answer; nothing was sent late.
        case expired(reason: String?)
    }

    public let status: Status
    /// Attempts made, including one that failed before reaching the push service (no access
    /// token, no connection).
    public let attempts: Int
    /// An attempt reached the push service whole and got no answer, so the device may have the
    /// push whatever `status` says: once more than `sent` says (a possible duplicate, which apps
    /// recognise by the event's id), or at all when `failed` or `expired`.
    public let maybeDelivered: Bool

    public init(status: Status, attempts: Int, maybeDelivered: Bool = false) {
        self.status = status
        self.attempts = attempts
        self.maybeDelivered = maybeDelivered
    }
}
