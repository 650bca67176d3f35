/// A rendered push, its members in the order the format's document prints them: the whole APNs
/// request body, or the members of an FCM message (`data`, and SignalWire's `notification`),
/// which `ComposedPush.fcmMessage` sends with its `android` block.
public enum PushPayload: Sendable, Equatable {
    case apns(PayloadJSON)
    case fcm(PayloadJSON)

    /// An FCM data message's members, `{"data": {…}}`: every value a string, as FCM requires.
    static func fcmData(_ data: [(key: String, value: String)]) -> PushPayload {
        .fcm(["data": .object(data.map { .init($0.key, .string($0.value)) })])
    }

    /// The rendered JSON, which golden tests compare with the documents: the APNs body as sent,
    /// or the FCM members as the document prints them (FCM gets them as `fcmMessage` writes them).
    public var bytes: [UInt8] {
        switch self {
        case .apns(let json), .fcm(let json): json.bytes
        }
    }
}
