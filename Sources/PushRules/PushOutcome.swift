import Foundation
import RegistryCore

/// What one push service answer means, in domain terms. Every APNs and FCM answer is sorted into
/// exactly one of these by `APNsAnswer.outcome` and `FCMAnswer.outcome`, so call sites never
/// inspect statuses or reason strings themselves.
public enum PushOutcome: Sendable, Equatable {
    /// Accepted. `serviceID` is the `apns-id` APNs echoed or the FCM message `name`.
    case sent(serviceID: String?)
    /// The token is dead or wrong; the registry applies `verdict` through the same rules as
    /// `POST /v1/feedback`.
    case tokenInvalid(TokenVerdict)
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
}
