import PushRules

/// What one device is sent for one call event, by the token rule (`DeliveryRule`): an APNs push
/// and its headers, an FCM message and its `android.ttl`, or nothing and why. A plan, not an
/// outcome: what then happens to the push is the sender's `DeliveryResult`.
public enum CallPushPlan: Sendable, Equatable {
    case apns(APNsSendOptions)
    /// A high-priority data message whose `android.ttl` is what is left of the event's ttl.
    case fcm(ttl: Duration)
    /// This kind of token never receives this kind of event.
    case skipped(reason: String)
    /// The event's ttl ran out before the push could go.
    case expired(reason: String)

    /// What a push's payload is rendered as, when there is a push.
    public var kind: PushKind? {
        switch self {
        case .apns(let options): options.pushType == .voip ? .voip : .alert
        case .fcm: .data
        case .skipped, .expired: nil
        }
    }
}
