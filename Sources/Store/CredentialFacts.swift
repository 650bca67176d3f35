/// What may be shown of a provider's credentials, kept in the clear beside the sealed secret:
/// ids and the public key's fingerprint, never the key.
public struct CredentialFacts: Sendable, Equatable {
    public let teamID: String?
    public let keyID: String?
    public let clientEmail: String?
    public let keyFingerprint: String

    public init(teamID: String?, keyID: String?, clientEmail: String?, keyFingerprint: String) {
        self.teamID = teamID
        self.keyID = keyID
        self.clientEmail = clientEmail
        self.keyFingerprint = keyFingerprint
    }
}
