/// What one device gets for one call event: a push with its headers, or nothing and why.
public enum DeliveryDecision: Sendable, Hashable {
    case apns(APNsPushPlan)
    case fcm(FCMPushPlan)
    /// This kind of token never receives this kind of event.
    case skipped(reason: String)
    /// The event's ttl ran out before the push could go.
    case expired(reason: String)

    /// What a push's payload is rendered as, when there is a push.
    public var kind: PushKind? {
        switch self {
        case .apns(let plan): plan.pushType == .voip ? .voip : .alert
        case .fcm: .data
        case .skipped, .expired: nil
        }
    }
}
