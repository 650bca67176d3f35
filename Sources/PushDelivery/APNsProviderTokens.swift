import NIOConcurrencyHelpers

/// The provider tokens of a process, one per APNs key: an APNs key belongs to a team, not an
/// app, so several providers (apps) may use one key — and Apple counts renewals per key, so they
/// must share its token or they trip `TooManyProviderTokenUpdates` on each other.
public final class APNsProviderTokens: Sendable {
    /// Team, key id and the key's public fingerprint: two different keys uploaded under one key
    /// id (a mistake) never share a token.
    private struct Key: Hashable {
        let teamID: String
        let keyID: String
        let fingerprint: String
    }

    public static let shared = APNsProviderTokens()

    private let tokens = NIOLockedValueBox([Key: APNsProviderToken]())

    public init() {}

    func token(for credentials: APNsCredentials) -> APNsProviderToken {
        let fingerprint = (try? credentials.key.verifyingKey().fingerprint()) ?? ""
        let key = Key(teamID: credentials.teamID, keyID: credentials.keyID, fingerprint: fingerprint)
        return tokens.withLockedValue { tokens in
            if let existing = tokens[key] { return existing }
            let token = APNsProviderToken(credentials: credentials)
            tokens[key] = token
            return token
        }
    }
}
