import Foundation
import Postgres
import RegistryCrypto

/// The APNs provider token each key currently uses, kept for every instance on this database
/// (`apns_provider_tokens`), sealed under the master key. What makes a token due for renewal is
/// the push sender's rule; this store only reads the current one and replaces it under a lock.
public struct SharedProviderTokenStore: Sendable {
    /// A stored token: the JWT and its `iat`.
    public struct Token: Sendable, Equatable {
        public let jwt: String
        public let issuedAt: Date

        public init(jwt: String, issuedAt: Date) {
            self.jwt = jwt
            self.issuedAt = issuedAt
        }
    }

    /// Which key a token is for; the fingerprint is of the key's public half.
    public struct Key: Sendable, Hashable {
        public let teamID: String
        public let keyID: String
        public let fingerprint: String

        public init(teamID: String, keyID: String, fingerprint: String) {
            self.teamID = teamID
            self.keyID = keyID
            self.fingerprint = fingerprint
        }

        /// Binds a sealed token to its key: copied into another key's row it fails to open.
        var sealingContext: String { "apns provider token \(teamID) \(keyID) \(fingerprint)" }
    }

    let pool: PostgresPool
    let sealer: SecretSealer

    public init(pool: PostgresPool, sealer: SecretSealer) {
        self.pool = pool
        self.sealer = sealer
    }

    /// The stored token of `key`, without waiting for a renewal in progress; nil when there is
    /// none or it cannot be opened (sealed under a master key no longer configured).
    public func current(_ key: Key) async throws -> Token? {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in try Self.read(key, connection: connection, sealer: sealer) }
        }
    }

    /// Under a transaction-scoped advisory lock on `key`, so one instance at a time decides:
    /// reads the stored token, passes it to `decide`, stores what `decide` returns when it is a
    /// different token, and returns it. `decide` runs on a database thread while the lock is
    /// held: it must be quick (signing one JWT is).
    public func update(_ key: Key, _ decide: @escaping @Sendable (Token?) throws -> Token) async throws -> Token {
        try await StoreFailure.translating {
            try await pool.withTransaction { connection in
                _ = try connection.queryPrepared(
                    "SELECT pg_advisory_xact_lock(hashtext('apns_provider_tokens'), hashtext($1))",
                    ["\(key.teamID) \(key.keyID) \(key.fingerprint)"])
                let stored = try Self.read(key, connection: connection, sealer: sealer)
                let chosen = try decide(stored)
                guard chosen != stored else { return chosen }
                _ = try connection.queryPrepared(
                    """
                    INSERT INTO apns_provider_tokens (team_id, key_id, key_fingerprint, token_sealed, issued_at)
                    VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (team_id, key_id, key_fingerprint)
                    DO UPDATE SET token_sealed = excluded.token_sealed, issued_at = excluded.issued_at
                    """,
                    [
                        key.teamID, key.keyID, key.fingerprint,
                        try sealer.seal(Array(chosen.jwt.utf8), context: key.sealingContext), chosen.issuedAt,
                    ])
                return chosen
            }
        }
    }

    private static func read(_ key: Key, connection: PostgresConnection, sealer: SecretSealer) throws -> Token? {
        let row = try connection.queryPrepared(
            """
            SELECT token_sealed, issued_at FROM apns_provider_tokens
            WHERE team_id = $1 AND key_id = $2 AND key_fingerprint = $3
            """,
            [key.teamID, key.keyID, key.fingerprint]
        ).rows.first
        guard let row else { return nil }
        // A token sealed under a retired master key is as good as none: the next renewal replaces it.
        guard let opened = try? sealer.open(try row.string("token_sealed"), context: key.sealingContext) else {
            return nil
        }
        return Token(jwt: String(decoding: opened, as: UTF8.self), issuedAt: try row.date("issued_at"))
    }
}
