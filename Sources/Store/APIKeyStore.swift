import Foundation
import Postgres
import RegistryCore

/// An API key as stored: never its secret, only who it is and what it may do.
public struct APIKeyRecord: Sendable, Equatable {
    public var id: String
    public var name: String
    public var scopes: [APIKeyScope]
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?
}

/// API keys, looked up by the SHA-256 of their secret (hex).
public struct APIKeyStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) { self.pool = pool }

    private static let columns = "id::text AS id, name, scopes, created_at, last_used_at, revoked_at"

    public func create(name: String, scopes: [APIKeyScope], secretHash: String) async throws -> APIKeyRecord {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try Self.decode(
                    connection.queryPrepared(
                        "INSERT INTO api_keys (name, scopes, secret_hash) VALUES ($1, $2, $3) RETURNING \(Self.columns)",
                        [name, scopes.map(\.rawValue), secretHash]
                    ).rows[0])
            }
        }
    }

    /// Makes a key from configuration (`REGISTRY_ADMIN_KEY`) valid as admin, once. A key an
    /// operator has since revoked stays revoked.
    public func ensure(name: String, scopes: [APIKeyScope], secretHash: String) async throws {
        try await StoreFailure.translating {
            _ = try await pool.withConnection { connection in
                try connection.queryPrepared(
                    "INSERT INTO api_keys (name, scopes, secret_hash) VALUES ($1, $2, $3) ON CONFLICT (secret_hash) DO NOTHING",
                    [name, scopes.map(\.rawValue), secretHash])
            }
        }
    }

    public func all() async throws -> [APIKeyRecord] {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared("SELECT \(Self.columns) FROM api_keys ORDER BY created_at, id", [])
                    .rows.map(Self.decode)
            }
        }
    }

    /// The channel every revocation notifies (payload: the key's id), so that processes caching
    /// live keys drop them.
    public static let changesChannel = "registry_api_keys"

    /// Revokes a key; revoking it again is fine. Throws `.notFound` for an unknown id. The
    /// notification goes out with the commit.
    public func revoke(id: String) async throws {
        try await StoreFailure.translating {
            guard UUID(uuidString: id) != nil else { throw RegistryError.notFound("key") }
            let found = try await pool.withTransaction { connection in
                let updated =
                    try connection.queryPrepared(
                        "UPDATE api_keys SET revoked_at = coalesce(revoked_at, clock_timestamp()) WHERE id = $1::uuid",
                        [id]
                    ).affectedRows > 0
                if updated { _ = try connection.queryPrepared("SELECT pg_notify($1, $2)", [Self.changesChannel, id]) }
                return updated
            }
            if !found { throw RegistryError.notFound("key") }
        }
    }

    /// The live key with this secret hash, or nil (unknown or revoked). `last_used_at` is written
    /// at most once a minute per key to keep authentication a read.
    public func authenticate(secretHash: String) async throws -> (id: String, scopes: Set<APIKeyScope>)? {
        try await StoreFailure.translating {
            let rows = try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    WITH key AS (
                        SELECT id, scopes, last_used_at FROM api_keys WHERE secret_hash = $1 AND revoked_at IS NULL),
                    touched AS (
                        UPDATE api_keys a SET last_used_at = clock_timestamp() FROM key k
                         WHERE a.id = k.id AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute'))
                    SELECT id::text AS id, scopes FROM key
                    """, [secretHash]
                ).rows
            }
            guard let row = rows.first else { return nil }
            return (try row.string("id"), Set(try row.stringArray("scopes").compactMap(APIKeyScope.init(rawValue:))))
        }
    }

    private static func decode(_ row: PostgresRow) throws -> APIKeyRecord {
        APIKeyRecord(
            id: try row.string("id"), name: try row.string("name"),
            scopes: try row.stringArray("scopes").compactMap(APIKeyScope.init(rawValue:)),
            createdAt: try row.date("created_at"), lastUsedAt: try row.optionalDate("last_used_at"),
            revokedAt: try row.optionalDate("revoked_at"))
    }
}
