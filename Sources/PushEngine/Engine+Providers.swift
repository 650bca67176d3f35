import Foundation
import PushDelivery
import RegistryCore

/// What the API tells the engine about providers, and what it reads of their health: the only
/// ways past the engine to its senders, so routes never hold one.
extension Engine {
    /// Provider `name` was created here: its per-provider series appear at 0 before its first push.
    package func providerCreated(_ name: ProviderName) async {
        await pushSenders.introduce(name)
    }

    /// Provider `name` was deleted here: its sender closes once the pushes it carries have
    /// finished. Other instances drop theirs at their next push (`providers(of:)`).
    package func providerDeleted(_ name: ProviderName) async {
        await pushSenders.remove(name)
    }

    /// Tries to open every stored provider credential at start. The ones that cannot be opened
    /// are marked unhealthy at once (listed in `/readyz`, logged once) instead of failing one push
    /// at a time; an APNs client certificate's expiry is recorded before the provider's first
    /// push. Every provider's series exist from here on. Throws `RegistryError.unavailable` when
    /// the database does not answer.
    package func openStoredCredentials() async throws -> (
        opened: [String], unreadable: [(name: String, reason: String)]
    ) {
        var opened: [String] = []
        var unreadable: [(name: String, reason: String)] = []
        for stored in try await providers.all() {
            let name = stored.provider.name
            await pushSenders.introduce(name)
            guard stored.credentials != nil else { continue }
            do {
                let secret = try await credentials.secret(of: name)
                opened.append(name.value)
                if let secret,
                    case .apnsCertificate(let certificate)? = try? ProviderCredentials.parse(
                        try JSONParser.parse(String(decoding: secret, as: UTF8.self)), service: stored.provider.service)
                {
                    certificateExpiries.record(name.value, notValidAfter: certificate.notValidAfter)
                }
            } catch RegistryError.conflict(let reason), RegistryError.internal(let reason) {
                // No master key at all, or not the one it was sealed under.
                unreadable.append((name.value, reason))
                await pushSenders.setUnhealthy(name, reason: reason)
            }
        }
        return (opened, unreadable)
    }

    /// Providers whose credentials the push service refused or that cannot be opened, with why.
    package var unhealthyProviders: [(name: String, reason: String)] {
        get async { await pushSenders.unhealthyProviders }
    }

    /// The APNs client certificates' ends, for `/readyz` and the expiry gauge.
    package var certificateExpiries: APNsCertificateExpiries { pushSenders.certificateExpiries }

    /// Brings the per-provider push gauges up to date, for a `/metrics` scrape.
    package func recordPushStatistics() async {
        await pushSenders.recordStatistics()
    }
}
