import RegistryCrypto

/// An APNs token-authentication key: the `.p8` key, its key id and the team it belongs to.
public struct APNsCredentials: Sendable {
    public let teamID: String
    public let keyID: String
    public let key: SigningKey

    public init(teamID: String, keyID: String, key: SigningKey) {
        precondition(key.algorithm == .es256, "APNs provider tokens are ES256")
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
    }
}
