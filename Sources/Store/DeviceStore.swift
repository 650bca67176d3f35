import Foundation
import Postgres
import RegistryCore

/// The registry's device SQL. Every method is one transaction; when it returns, it has committed.
/// Every failure is a `RegistryError` (see `StoreFailure`). Build one per process: its batch
/// runners are what `writeConnections` and `readConnections` count.
public struct DeviceStore: Sendable {
    let pool: PostgresPool
    let writes: BatchQueue<WriteOperation, WriteOutcome>
    let reads: BatchQueue<PostgresStatement, PostgresResult>
    /// Where listings, lookups and export may read instead of `pool`; nil reads from `pool`.
    let readReplica: ReadReplica?
    /// Batched reads (a user's devices) on the replica.
    let replicaReads: BatchQueue<PostgresStatement, PostgresResult>?
    /// Most devices one user may have; registering past it evicts the least recently seen.
    public let userDeviceCap: Int

    public static let defaultUserDeviceCap = 25

    /// `readReplica`, when given, must have `pool` as its primary.
    public init(pool: PostgresPool, userDeviceCap: Int = defaultUserDeviceCap, readReplica: ReadReplica? = nil) {
        self.pool = pool
        self.userDeviceCap = userDeviceCap
        self.readReplica = readReplica
        writes = GroupCommitter.make(
            pool: pool,
            afterCommit: readReplica.map { replica in
                { @Sendable (connection: PostgresConnection, operations: [WriteOperation]) throws in
                    try replica.noteCommit(of: operations.flatMap(\.readKeys), on: connection)
                }
            })
        reads = ReadBatcher.make(pool: pool)
        replicaReads = readReplica.map { ReadBatcher.make(pool: $0.replica) }
    }

    /// Registers one token (see `register_device()` in the migrations for the race handling),
    /// sharing a transaction with other requests' writes when they arrive together (group commit).
    /// Throws `RegistryError.unknownProvider` / `.typeNotAccepted` for a provider that cannot take it.
    public func register(_ registration: DeviceRegistration) async throws -> RegistrationOutcome {
        try await StoreFailure.translating {
            try await writes.submit(.register(registration, userDeviceCap: userDeviceCap)).registration
        }
    }

    /// `register` for a caller that is not a task: `completion` runs once, on the batch runner's
    /// thread (or at once when the request is refused), so it should only hand the outcome on.
    public func register(
        _ registration: DeviceRegistration,
        completion: @escaping @Sendable (Result<RegistrationOutcome, any Error>) -> Void
    ) {
        writes.submit(.register(registration, userDeviceCap: userDeviceCap)) { result in
            completion(result.map { $0.registration }.mapError(StoreFailure.domain))
        }
    }

    /// Registers several tokens in one transaction: all or none (a SIP contact's remote + VoIP pair).
    /// The providers are locked against deletion first, so a provider deleted meanwhile either
    /// waits for this commit or went first and rejects every token; one rejection rolls back the
    /// rest. Throws `.unknownProvider` / `.typeNotAccepted` for the first token refused.
    public func registerAll(_ registrations: [DeviceRegistration]) async throws -> [RegistrationOutcome] {
        let operations = registrations.map { WriteOperation.register($0, userDeviceCap: userDeviceCap) }
        let providers = Array(Set(registrations.map(\.provider.value))).sorted()
        return try await StoreFailure.translating {
            let outcomes = try await pool.withTransaction { connection in
                _ = try connection.queryPrepared(
                    "SELECT 1 FROM providers WHERE name = ANY ($1) ORDER BY name FOR KEY SHARE", [providers])
                return try operations.map { try $0.run(on: connection).registration }
            }
            try await readReplica?.noteCommit(of: registrations.flatMap(ReadKey.of))
            return outcomes
        }
    }

    /// A user's devices, most recently seen first. Disabled devices only when asked for. `strong`
    /// reads from the primary whatever the replica's state; `after`, a consistency token, from a
    /// replica only once it has replayed that position.
    public func devices(
        of user: UserID, type: TokenType? = nil, provider: ProviderName? = nil, includeDisabled: Bool = false,
        strong: Bool = false, after token: WALPosition? = nil
    ) async throws -> [Device] {
        try await StoreFailure.translating {
            let statement: PostgresStatement = (
                """
                SELECT \(DeviceColumns.list) FROM devices
                 WHERE user_id = $1 AND ($2::text IS NULL OR type = $2) AND ($3::text IS NULL OR provider = $3)
                   AND ($4::boolean OR disabled_at IS NULL)
                 ORDER BY last_seen_at DESC, id DESC
                """, [user.value, type?.rawValue, provider?.value, includeDisabled]
            )
            return try await reading(strong: strong, key: ReadKey.user(user.value), after: token) { target in
                try await (target === pool ? reads : replicaReads ?? reads).submit(statement)
            }.rows.map(DeviceColumns.device)
        }
    }

    /// The device holding `token`. Throws `.notFound`, or `.conflict` when the token exists under
    /// several providers and none was named. `strong` and `after` as for `devices(of:)`.
    public func device(
        token: String, provider: ProviderName?, strong: Bool = false, after consistency: WALPosition? = nil
    ) async throws -> Device {
        let lookup = TokenLookup(token)
        return try await StoreFailure.translating {
            let rows = try await reading(strong: strong, key: ReadKey.token(token), after: consistency) { target in
                try await target.withConnection { connection in
                    try connection.queryPrepared(
                        """
                        SELECT \(DeviceColumns.list) FROM devices
                         WHERE \(TokenLookup.condition(1)) AND ($3::text IS NULL OR provider = $3) LIMIT 2
                        """, lookup.parameters + [provider?.value]
                    ).rows
                }
            }
            guard let row = rows.first else { throw RegistryError.notFound("device") }
            guard rows.count == 1 else {
                throw RegistryError.conflict(
                    "the token is registered under several providers; name one with ?provider=")
            }
            return try DeviceColumns.device(from: row)
        }
    }

    /// Logout of one device: removes the token only while it belongs to `user`. A token that has
    /// since moved to another user is left alone, so a late logout hook cannot unregister the
    /// next user's phone. Returns whether a row was removed.
    @discardableResult
    public func unregister(user: UserID, token: String, provider: ProviderName?) async throws -> Bool {
        try await StoreFailure.translating {
            try await writes.submit(.unregister(user: user, token: token, provider: provider)).unregistered
        }
    }

    /// Logout everywhere / account deletion. Returns how many devices were removed.
    public func unregisterAll(user: UserID) async throws -> Int {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                let deleted = try connection.queryPrepared("DELETE FROM devices WHERE user_id = $1", [user.value])
                try readReplica?.noteCommit(of: [ReadKey.user(user.value)], on: connection)
                return deleted.affectedRows
            }
        }
    }

    /// Removes a token whoever owns it (senders and admins). Returns whether a row was removed.
    @discardableResult
    public func delete(token: String, provider: ProviderName?) async throws -> Bool {
        let lookup = TokenLookup(token)
        return try await StoreFailure.translating {
            try await pool.withConnection { connection in
                let owners = try connection.queryPrepared(
                    """
                    DELETE FROM devices WHERE \(TokenLookup.condition(1)) AND ($3::text IS NULL OR provider = $3)
                    RETURNING user_id
                    """,
                    lookup.parameters + [provider?.value]
                ).rows.map { ReadKey.user(try $0.string("user_id")) }
                // The owners' listings, too: an admin's delete is read back by user as often as by token.
                try readReplica?.noteCommit(of: owners + [ReadKey.token(token)], on: connection)
                return !owners.isEmpty
            }
        }
    }
}
