/// The `android` block of an FCM v1 message, decided by `DeliveryRule`.
public struct FCMPushPlan: Sendable, Hashable {
    /// `android.priority`: always `high`, which is what gets a data message through Doze; the
    /// app turns every one of these into something the user sees (a call screen or a banner), as
    /// FCM asks of high-priority messages.
    public let priority: String
    /// What is left of the event's ttl when the push is sent, in whole milliseconds.
    public let ttlMilliseconds: Int64

    /// `android.ttl` as FCM v1 spells a duration: `30s`, `29.250s`.
    public var ttl: String {
        let seconds = ttlMilliseconds / 1000
        let milliseconds = ttlMilliseconds % 1000
        guard milliseconds != 0 else { return "\(seconds)s" }
        let fraction = String(milliseconds)
        return "\(seconds).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }
}
