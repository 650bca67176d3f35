import Postgres
import RegistryCore
import RegistryCrypto

/// The sealed half of provider credentials: sealing under the master key, opening for a sender,
/// and resealing under a new master key. The secret is bytes here (the credentials' stored form);
/// what they mean is the push senders' business.
public struct ProviderCredentialStore: Sendable {
    let pool: PostgresPool
    /// Nil when no `REGISTRY_MASTER_KEY` is configured: nothing can be sealed or opened.
    let sealer: SecretSealer?

    public init(pool: PostgresPool, sealer: SecretSealer?) {
        self.pool = pool
        self.sealer = sealer
    }

    static let noMasterKey = RegistryError.conflict(
        "no master key is configured, so credentials and payload keys cannot be stored: set REGISTRY_MASTER_KEY to 32 random bytes "
            + "in base64url (openssl rand 32 | basenc --base64url | tr -d =) and restart")

    /// The sealed text of `secret` for provider `name`. Throws `.conflict` saying how to configure
    /// a master key when there is none.
    public func seal(_ secret: [UInt8], for name: ProviderName) throws -> String {
        guard let sealer else { throw Self.noMasterKey }
        do {
            return try sealer.seal(secret, context: Self.context(name))
        } catch {
            throw RegistryError.internal(reason: "sealing credentials failed: \(error)")
        }
    }

    /// The stored secret of provider `name`, opened; nil when it has none. Throws `.conflict`
    /// without a master key, `.internal` when the secret cannot be opened (a missing old key).
    public func secret(of name: ProviderName) async throws -> [UInt8]? {
        let sealed = try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    "SELECT credentials_sealed FROM providers WHERE name = $1", [name.value]
                ).rows.first?["credentials_sealed"]
            }
        }
        guard let sealed else { return nil }
        return try open(sealed, for: name)
    }

    /// Seals every secret not yet under the current master key again under it, one provider at
    /// a time; a secret changed meanwhile is left to its writer. Returns how many were resealed.
    public func resealAll() async throws -> Int {
        guard let sealer else { throw Self.noMasterKey }
        let rows = try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    "SELECT name, credentials_sealed FROM providers WHERE credentials_sealed IS NOT NULL ORDER BY name"
                ).rows.map { (try ProviderName(try $0.string("name")), try $0.string("credentials_sealed")) }
            }
        }
        var resealed = 0
        for (name, sealed) in rows where sealer.needsResealing(sealed) {
            let fresh = try seal(try open(sealed, for: name), for: name)
            resealed += try await StoreFailure.translating {
                try await pool.withConnection { connection in
                    try connection.queryPrepared(
                        "UPDATE providers SET credentials_sealed = $3 WHERE name = $1 AND credentials_sealed = $2",
                        [name.value, sealed, fresh]
                    ).affectedRows
                }
            }
        }
        return resealed
    }

    private func open(_ sealed: String, for name: ProviderName) throws -> [UInt8] {
        guard let sealer else { throw Self.noMasterKey }
        do {
            return try sealer.open(sealed, context: Self.context(name))
        } catch {
            throw RegistryError.internal(
                reason: "the credentials of provider \(name.value) cannot be opened (\(error)); "
                    + "is the master key they were sealed under in REGISTRY_OLD_MASTER_KEYS?")
        }
    }

    /// Binds a sealed secret to its provider: copied into another provider's row it fails to open.
    private static func context(_ name: ProviderName) -> String { "provider credentials \(name.value)" }
}
