import Postgres

/// What a provider write does to its credentials: `PUT` without `credentials` keeps them,
/// `"credentials": null` removes them, anything else replaces them (sealed by
/// `ProviderCredentialStore.seal`).
public enum CredentialChange: Sendable {
    case keep
    case remove
    case replace(sealed: String, facts: CredentialFacts)

    /// The credential columns' new values ($2…$6 of the update), or nil to leave them.
    var update: [(any PostgresEncodable)?]? {
        switch self {
        case .keep: nil
        case .remove: [nil, nil, nil, nil, nil]
        case .replace(let sealed, let facts):
            [sealed, facts.teamID, facts.keyID, facts.clientEmail, facts.keyFingerprint]
        }
    }
}
