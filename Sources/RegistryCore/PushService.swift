/// The delivery network a provider sends through.
public enum PushService: String, Sendable, Hashable, Codable, CaseIterable {
    case apns
    case fcm

    /// Parses the exact lowercase wire name; `field` is the JSON field it came from.
    public init(_ raw: String, field: String = "service") throws(ValidationError) {
        guard let service = PushService(rawValue: raw) else {
            throw ValidationError(field: field, message: "must be one of: apns, fcm")
        }
        self = service
    }
}
