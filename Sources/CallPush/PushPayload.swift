/// A rendered push: the whole APNs request body, or the parts of an FCM message.
public enum PushPayload: Sendable, Hashable {
    case apns(PayloadJSON)
    case fcm(FCMContent)

    /// The bytes a golden test compares: the APNs body, or FCM's seed-document shape.
    public var bytes: [UInt8] {
        switch self {
        case .apns(let body): body.bytes
        case .fcm(let content): content.json.bytes
        }
    }
}
