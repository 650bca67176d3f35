import RegistryCore

/// The `apns-push-type` header values whose topic rule is documented by Apple, and the suffix
/// each one adds to the app's bundle id in `apns-topic`.
public enum APNsPushType: String, Sendable, Hashable, CaseIterable {
    case alert
    case background
    case voip
    case complication
    case fileprovider
    case location
    case liveactivity
    case pushtotalk

    public init(_ raw: String, field: String = "apns.push_type") throws(ValidationError) {
        guard let type = APNsPushType(rawValue: raw) else {
            throw ValidationError(
                field: field, message: "must be one of: " + Self.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self = type
    }

    /// `apns-topic`: the bundle id, plus the suffix the type requires (`.voip` for VoIP).
    public func topic(bundleID: String) -> String {
        switch self {
        case .alert, .background: bundleID
        case .voip: bundleID + ".voip"
        case .complication: bundleID + ".complication"
        case .fileprovider: bundleID + ".pushkit.fileprovider"
        case .location: bundleID + ".location-query"
        case .liveactivity: bundleID + ".push-type.liveactivity"
        case .pushtotalk: bundleID + ".voip-ptt"
        }
    }

    /// A PushKit VoIP token only takes `voip` pushes and any other APNs token never does, so a
    /// push of the wrong type for a device is rejected before it is sent.
    public func suits(_ type: TokenType) -> Bool {
        switch type {
        case .voip: self == .voip
        case .apns: self != .voip
        case .fcm: false
        }
    }
}
