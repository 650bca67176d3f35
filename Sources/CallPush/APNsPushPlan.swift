/// The APNs request headers for one push, decided by `DeliveryRule`.
public struct APNsPushPlan: Sendable, Hashable {
    public enum PushType: String, Sendable, Hashable {
        /// PushKit: wakes the app, which must report a call to CallKit at once.
        case voip
        /// A notification iOS shows itself.
        case alert
    }

    /// `apns-push-type`.
    public let pushType: PushType
    /// `apns-priority`: 10, deliver now.
    public let priority: Int
    /// `apns-expiration`: Unix seconds after which APNs stops trying.
    public let expiration: Int64
    /// `apns-collapse-id` of an alert: the event's stable UUID, so that the same event delivered
    /// twice (an answer lost on a dead connection, then resent) replaces its banner instead of
    /// showing a second one. PushKit delivers every VoIP push: a ring's app dedupes on the
    /// payload's id instead.
    public var collapseID: String? = nil
}
