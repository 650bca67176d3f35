/// What kind of token a device registered: an APNs alert/background token (`apns`), a PushKit
/// VoIP token (`voip`, also delivered by APNs but to the `<bundle>.voip` topic), or an FCM
/// registration token.
public enum TokenType: String, Sendable, Hashable, Codable, CaseIterable {
    case apns
    case voip
    case fcm

    public init(_ raw: String, field: String = "type") throws(ValidationError) {
        guard let type = TokenType(rawValue: raw) else {
            throw ValidationError(field: field, message: "must be one of: apns, voip, fcm")
        }
        self = type
    }

    /// The service that delivers this kind of token.
    public var service: PushService {
        switch self {
        case .apns, .voip: .apns
        case .fcm: .fcm
        }
    }
}
