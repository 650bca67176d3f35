import RegistryCore

/// What a call event tells the callee's phones: Stream's five push events. Only `call.ring` rings
/// (a VoIP push on iOS, a high-priority data message on Android); the other four are plain
/// notifications the app shows as it likes.
public enum CallEventType: String, Sendable, Hashable, CaseIterable {
    case ring = "call.ring"
    case notification = "call.notification"
    case missed = "call.missed"
    case liveStarted = "call.live_started"
    case sessionStarted = "call.session_started"

    public init(_ raw: String, field: String = "type") throws(ValidationError) {
        guard let type = CallEventType(rawValue: raw) else {
            let names = Self.allCases.map(\.rawValue)
            let hint = FieldSuggestion.closest(to: raw, among: names).map { "did you mean \"\($0)\"? " } ?? ""
            throw ValidationError(field: field, message: "\(hint)must be one of: " + names.joined(separator: ", "))
        }
        self = type
    }

    public var isRinging: Bool { self == .ring }

    /// The ttl of an event that gives none: how long APNs and FCM keep its push for a phone that
    /// is offline. A ring is over with its call (DialStack's window is 30 s); a missed call is
    /// still news the next morning; a call or a live stream to join lasts about an hour.
    public var defaultTTL: CompactDuration {
        switch self {
        case .ring: CompactDuration(seconds: 30)
        case .missed: CompactDuration(seconds: 86_400)
        case .notification, .liveStarted, .sessionStarted: CompactDuration(seconds: 3600)
        }
    }
}
