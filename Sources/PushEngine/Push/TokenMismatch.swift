import PushRules
import RegistryCore

/// The reason a device is `skipped` because its token is not of the kind the APNs push type goes
/// to, naming both; `PushMetrics` counts these apart from the other skips.
enum TokenMismatch {
    static let prefix = "token mismatch"

    /// Called only for a pair `APNsPushType.suits` refuses: a `voip` push to a remote token, or
    /// another type to a VoIP token.
    static func reason(_ pushType: APNsPushType, _ tokenType: TokenType) -> String {
        pushType == .voip
            ? "\(prefix): a voip push goes only to VoIP (PushKit) tokens, not to a remote (\(tokenType.rawValue)) token"
            : "\(prefix): a VoIP (PushKit) token takes only voip pushes, not \(pushType.rawValue)"
    }
}
