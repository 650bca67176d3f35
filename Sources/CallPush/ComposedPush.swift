import PushRules
import RegistryCore

/// One device's share of a call event: the plan, and the payload when something is sent.
public struct ComposedPush: Sendable, Equatable {
    public let plan: CallPushPlan
    /// Nil exactly when the plan is `skipped` or `expired`.
    public let payload: PushPayload?

    /// The FCM v1 message the push is sent as: the rendered members, at high priority for the
    /// plan's ttl. Nil unless the plan is an FCM push.
    public var fcmMessage: FCMMessage? {
        guard case .fcm(let ttl) = plan, case .fcm(let members)? = payload, case .object(let fields) = members.jsonValue
        else { return nil }
        return FCMMessage(fields).highPriority(ttl: ttl)
    }
}
