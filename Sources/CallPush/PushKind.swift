/// The three kinds of push a call event can become; each format renders a payload per kind.
public enum PushKind: String, Sendable, Hashable, CaseIterable {
    /// iOS PushKit, for rings.
    case voip
    /// iOS notification on the remote APNs token, for the non-ringing events.
    case alert
    /// Android FCM message (high priority), for every event.
    case data

    /// The largest payload the push service accepts: APNs takes 5 KB for VoIP and 4 KB for
    /// alerts; FCM 4 KB of message content (measured here as the JSON, a little more than FCM
    /// counts, so nothing that passes is refused).
    public var maxPayloadBytes: Int {
        switch self {
        case .voip: 5120
        case .alert, .data: 4096
        }
    }
}
