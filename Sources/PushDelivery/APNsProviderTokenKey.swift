/// Which APNs key a provider token belongs to: team, key id and the key's public fingerprint, so
/// two different keys uploaded under one key id (a mistake) never share a token.
public struct APNsProviderTokenKey: Sendable, Hashable {
    public let teamID: String
    public let keyID: String
    public let fingerprint: String

    public init(teamID: String, keyID: String, fingerprint: String) {
        self.teamID = teamID
        self.keyID = keyID
        self.fingerprint = fingerprint
    }

    init(_ credentials: APNsCredentials) {
        self.init(
            teamID: credentials.teamID, keyID: credentials.keyID,
            fingerprint: (try? credentials.key.verifyingKey().fingerprint()) ?? "")
    }
}
