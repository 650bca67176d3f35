import PushRules

/// The three kinds of push a call event can become; each format renders a payload per kind.
public enum PushKind: String, Sendable, Hashable, CaseIterable {
    /// iOS PushKit, for rings.
    case voip
    /// iOS notification on the remote APNs token, for the non-ringing events.
    case alert
    /// Android FCM message (high priority), for every event.
    case data

    /// The largest payload the push service accepts, the senders' own limit (`PayloadLimit`):
    /// APNs takes 5 KB for VoIP and 4 KB for alerts; FCM 4 KB of message, measured as the JSON
    /// sent (a little more than FCM counts, so nothing that passes is refused).
    public var maxPayloadBytes: Int {
        switch self {
        case .voip: PayloadLimit.maximumBytes(for: .voip)
        case .alert: PayloadLimit.maximumBytes(for: .apns)
        case .data: PayloadLimit.maximumBytes(for: .fcm)
        }
    }
}
