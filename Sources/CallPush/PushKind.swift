/// The three kinds of push a call event can become; each format renders a payload per kind.
public enum PushKind: String, Sendable, Hashable, CaseIterable {
    /// iOS PushKit, for rings.
    case voip
    /// iOS notification on the remote APNs token, for the non-ringing events.
    case alert
    /// Android FCM message (high priority), for every event.
    case data
}
