/// The non-secret face of a provider's credentials, for `GET /v1/providers/{name}` and logs:
/// `team_id`, `key_id`, `client_email`, the project, and `SHA256:` of the public key.
public struct CredentialSummary: Sendable, Equatable, Encodable {
    public let teamID: String?
    public let keyID: String?
    public let clientEmail: String?
    public let projectID: String?
    public let keyFingerprint: String

    enum CodingKeys: String, CodingKey {
        case teamID = "team_id"
        case keyID = "key_id"
        case clientEmail = "client_email"
        case projectID = "project_id"
        case keyFingerprint = "key_fingerprint"
    }
}
