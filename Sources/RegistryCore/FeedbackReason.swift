/// A reason a push service gave for refusing a token, recognised by name.
///
/// APNs spells reasons in PascalCase (`BadDeviceToken`), FCM v1 in SCREAMING_CASE
/// (`UNREGISTERED`), and the legacy FCM HTTP API in PascalCase again (`NotRegistered`). Feedback
/// arrives from scripts and other teams' senders, so matching ignores case, `_` and `-` and
/// surrounding whitespace (`bad_device_token` is `BadDeviceToken`), but a reason only counts for
/// the service that defines it: `BadDeviceToken` reported for an FCM token is `.other`.
public enum FeedbackReason: Sendable, Hashable {
    // APNs
    case unregistered  // APNs 410 Unregistered, FCM UNREGISTERED / legacy NotRegistered
    case expiredToken  // APNs ExpiredToken
    case badDeviceToken  // APNs BadDeviceToken
    case deviceTokenNotForTopic  // APNs DeviceTokenNotForTopic
    // FCM
    case senderIDMismatch  // FCM SENDER_ID_MISMATCH / legacy MismatchSenderId
    case invalidRegistration  // legacy FCM InvalidRegistration: the token is malformed
    /// Anything else, as given (trimmed): PayloadTooLarge, BadTopic, TooManyRequests, …
    case other(String)

    public init(_ raw: String, service: PushService) {
        let trimmed = raw.trimmingWhitespace()
        let key = String(trimmed.lowercased().filter { $0 != "_" && $0 != "-" })
        switch (service, key) {
        case (.apns, "unregistered"), (.fcm, "unregistered"), (.fcm, "notregistered"): self = .unregistered
        case (.apns, "expiredtoken"): self = .expiredToken
        case (.apns, "baddevicetoken"): self = .badDeviceToken
        case (.apns, "devicetokennotfortopic"): self = .deviceTokenNotForTopic
        case (.fcm, "senderidmismatch"), (.fcm, "mismatchsenderid"): self = .senderIDMismatch
        case (.fcm, "invalidregistration"): self = .invalidRegistration
        default: self = .other(trimmed)
        }
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[start...end])
    }
}
