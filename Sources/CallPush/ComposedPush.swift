/// One device's share of a call event: the decision, and the payload when something is sent.
public struct ComposedPush: Sendable, Hashable {
    public let decision: DeliveryDecision
    /// Nil exactly when the decision is `skipped` or `expired`.
    public let payload: PushPayload?
}
