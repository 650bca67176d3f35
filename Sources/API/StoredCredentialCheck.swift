import PushDelivery
import PushEngine
import RegistryCore

/// What the master key made of the stored provider credentials at start.
public struct StoredCredentialCheck: Sendable {
    /// Providers whose credentials it opened.
    public let opened: [String]
    /// Providers whose credentials it could not open, with why (never the secret).
    public let unreadable: [(name: String, reason: String)]
}

extension RegistryAPI {
    /// Tries to open every stored provider credential. The ones that cannot be opened are marked
    /// unhealthy at once (listed in `/readyz`, logged once) instead of failing one push at a
    /// time; an APNs client certificate's expiry goes to `/readyz` and `/metrics` before the
    /// provider's first push. Throws `RegistryError.unavailable` when the database does not answer.
    public func checkStoredCredentials() async throws -> StoredCredentialCheck {
        var opened: [String] = []
        var unreadable: [(name: String, reason: String)] = []
        for stored in try await context.providers.all() {
            let name = stored.provider.name
            // Every provider's series exist from start, at 0 (unhealthy too unless below).
            await context.engine.pushSenders.introduce(name)
            guard stored.credentials != nil else { continue }
            do {
                let secret = try await context.credentialStore.secret(of: name)
                opened.append(name.value)
                if let secret,
                    case .apnsCertificate(let certificate)? = try? ProviderCredentials.parse(
                        try JSONParser.parse(String(decoding: secret, as: UTF8.self)), service: stored.provider.service)
                {
                    operational.certificateExpiries.record(name.value, notValidAfter: certificate.notValidAfter)
                }
            } catch RegistryError.conflict(let reason), RegistryError.internal(let reason) {
                // No master key at all, or not the one it was sealed under.
                unreadable.append((name.value, reason))
                await context.engine.pushSenders.setUnhealthy(name, reason: reason)
            }
        }
        return StoredCredentialCheck(opened: opened, unreadable: unreadable)
    }
}
