import PushDelivery
import RegistryCore
import Store

extension ProviderCredentialStore {
    /// Checked credentials as the store keeps them: sealed under the master key (409 without
    /// one) for provider `name`, with the facts that may be shown beside them.
    public func replacement(_ credentials: ProviderCredentials, for name: ProviderName) throws -> CredentialChange {
        let summary = try credentials.summary()
        return .replace(
            sealed: try seal(try credentials.storedForm(), for: name),
            facts: CredentialFacts(
                teamID: summary.teamID, keyID: summary.keyID, clientEmail: summary.clientEmail,
                keyFingerprint: summary.keyFingerprint))
    }
}
