import RegistryCore

/// The largest payload each kind of token accepts, checked before anything is sent: APNs refuses
/// more than 4 KiB (5 KiB for VoIP) with `PayloadTooLarge`, FCM more than 4 KiB.
public enum PayloadLimit {
    public static func maximumBytes(for type: TokenType) -> Int {
        switch type {
        case .apns: 4096
        case .voip: 5120
        case .fcm: 4096
        }
    }

    public static func fits(_ byteCount: Int, _ type: TokenType) -> Bool {
        byteCount <= maximumBytes(for: type)
    }
}
