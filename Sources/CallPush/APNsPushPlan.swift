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
    /// `apns-topic`: the bundle id, with `.voip` appended for VoIP pushes.
    public let topic: String
    /// `apns-priority`: 10, deliver now.
    public let priority: Int
    /// `apns-expiration`: Unix seconds after which APNs stops trying.
    public let expiration: Int64
}
