import CallPush
import Postgres
import RegistryCore
import RegistryCrypto

/// A fresh payload key and its sealed form, made before the registration that may store it.
public struct NewPayloadKey: Sendable {
    public let key: PayloadKey
    let sealed: String
}

/// Devices' payload keys (SignalWire's encrypted `invite`), sealed under the master key with the
/// same `SecretSealer` as provider credentials: made for a registration, opened for the ring
/// layer, resealed when the master key rotates. A sealed key is bound to its provider and token,
/// so copied into another device's row it fails to open.
public struct PayloadKeyStore: Sendable {
    let pool: PostgresPool
    /// Nil when no `REGISTRY_MASTER_KEY` is configured: nothing can be sealed or opened.
    let sealer: SecretSealer?

    public init(pool: PostgresPool, sealer: SecretSealer?) {
        self.pool = pool
        self.sealer = sealer
    }

    /// 32 random bytes, sealed for the device `token` of `provider`. Throws `.conflict` saying how
    /// to configure a master key when there is none, as storing credentials does.
    public func make(provider: ProviderName, token: PushToken) throws -> NewPayloadKey {
        guard let sealer else { throw ProviderCredentialStore.noMasterKey }
        do {
            guard let key = PayloadKey(try SecureRandom.bytes(count: PayloadKey.byteCount)) else {
                throw RegistryError.internal(reason: "SecureRandom returned the wrong number of bytes")
            }
            return NewPayloadKey(
                key: key, sealed: try sealer.seal(key.bytes, context: Self.context(provider.value, token.value)))
        } catch let error as RegistryError {
            throw error
        } catch {
            throw RegistryError.internal(reason: "making a payload key failed: \(error)")
        }
    }

    /// The opened keys of those of `tokens` (as stored: `Device.token.value`) under `provider`
    /// that have one; a token without a key or not registered is absent. Throws `.conflict`
    /// without a master key when a key is found, `.internal` when one cannot be opened (a
    /// missing old master key).
    public func payloadKeys(provider: ProviderName, tokens: [String]) async throws -> [String: PayloadKey] {
        let rows = try await sealedKeys(
            "WHERE provider = $1 AND token = ANY ($2) AND payload_key_sealed IS NOT NULL", [provider.value, tokens])
        var keys: [String: PayloadKey] = [:]
        for row in rows {
            keys[row.token] = try open(row)
        }
        return keys
    }

    /// Seals every key not yet under the current master key again under it; a key changed
    /// meanwhile (rotated, or dropped by a move) is left to its writer. Returns how many were
    /// resealed.
    public func resealAll() async throws -> Int {
        guard let sealer else { throw ProviderCredentialStore.noMasterKey }
        var resealed = 0
        for row in try await sealedKeys("WHERE payload_key_sealed IS NOT NULL ORDER BY id", [])
        where sealer.needsResealing(row.sealed) {
            let fresh: String
            do {
                fresh = try sealer.seal(try open(row).bytes, context: Self.context(row.provider, row.token))
            } catch let error as RegistryError {
                throw error
            } catch {
                throw RegistryError.internal(reason: "sealing a payload key failed: \(error)")
            }
            resealed += try await StoreFailure.translating {
                try await pool.withConnection { connection in
                    try connection.queryPrepared(
                        "UPDATE devices SET payload_key_sealed = $3 WHERE id = $1 AND payload_key_sealed = $2",
                        [row.id, row.sealed, fresh]
                    ).affectedRows
                }
            }
        }
        return resealed
    }

    private struct SealedRow {
        let id: Int
        let provider: String
        let token: String
        let sealed: String
    }

    private func sealedKeys(_ condition: String, _ parameters: [(any PostgresEncodable)?]) async throws
        -> [SealedRow]
    {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    "SELECT id, provider, token, payload_key_sealed FROM devices \(condition)", parameters
                ).rows.map { row in
                    SealedRow(
                        id: try row.int("id"), provider: try row.string("provider"), token: try row.string("token"),
                        sealed: try row.string("payload_key_sealed"))
                }
            }
        }
    }

    private func open(_ row: SealedRow) throws -> PayloadKey {
        guard let sealer else { throw ProviderCredentialStore.noMasterKey }
        let bytes: [UInt8]
        do {
            bytes = try sealer.open(row.sealed, context: Self.context(row.provider, row.token))
        } catch {
            throw RegistryError.internal(
                reason: "a payload key of provider \(row.provider) cannot be opened (\(error)); "
                    + "is the master key it was sealed under in REGISTRY_OLD_MASTER_KEYS?")
        }
        guard let key = PayloadKey(bytes) else {
            throw RegistryError.internal(reason: "a payload key of provider \(row.provider) is not 32 bytes")
        }
        return key
    }

    private static func context(_ provider: String, _ token: String) -> String { "payload key \(provider) \(token)" }
}

extension ProviderCredentialStore {
    /// The payload keys, sealed under the same master key as the credentials.
    public var payloadKeys: PayloadKeyStore { PayloadKeyStore(pool: pool, sealer: sealer) }
}
