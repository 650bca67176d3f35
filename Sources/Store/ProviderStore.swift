import CallPush
import Foundation
import Postgres
import RegistryCore

/// A provider as stored, with its timestamps, its `endpoint` override and what may be shown of
/// its credentials (their sealed form is read only by `ProviderCredentialStore`).
public struct StoredProvider: Sendable {
    public var provider: Provider
    /// `https://host[:port]` replacing the push service's base URL; nil for the service's own.
    public var endpoint: String?
    /// The payload shape the provider's app parses, and its title/body templates per event type.
    public var callFormat: CallFormat
    public var templates: NotificationTemplates
    public var credentials: CredentialFacts?
    public var createdAt: Date
    public var updatedAt: Date
}

/// Push provider administration.
public struct ProviderStore: Sendable {
    let pool: PostgresPool
    /// Told of a cascade's commit, so that reads wait for the replica to drop those devices too.
    let readReplica: ReadReplica?
    private let snapshot = ProviderSnapshot()

    public init(pool: PostgresPool, readReplica: ReadReplica? = nil) {
        self.pool = pool
        self.readReplica = readReplica
    }

    private static let columns = """
        name, service, topic, project_id, endpoint, call_format, templates, credential_team_id, credential_key_id, credential_client_email,
        credential_fingerprint, created_at, updated_at
        """

    /// Credentials belong to one service: a provider whose service changes loses them.
    private static let credentialColumns = [
        "credentials_sealed", "credential_team_id", "credential_key_id", "credential_client_email",
        "credential_fingerprint",
    ]

    /// $1 the provider, $2…$6 `CredentialChange.update`.
    private static let updateCredentials = """
        UPDATE providers SET credentials_sealed = $2, credential_team_id = $3, credential_key_id = $4,
               credential_client_email = $5, credential_fingerprint = $6, updated_at = clock_timestamp()
         WHERE name = $1
        """

    /// Creates or replaces a provider; `created` tells which. Changing the service of a provider
    /// that still has devices is a conflict: their tokens would no longer fit it. The provider's
    /// own fields are replaced; `endpoint`, `callFormat` and `templates` change only when set
    /// (kept, a new provider gets no endpoint, `stream` and no templates), so rotating a key or
    /// fixing a topic never changes the payload the app parses. The credentials change only as
    /// `credentials` says; a service change removes them and a kept endpoint (both were for the
    /// other service). Devices keep their payload keys whatever the format becomes: they are
    /// simply unused until the provider is `signalwire` again.
    public func put(
        _ provider: Provider, endpoint: FieldChange<String?> = .keep, callFormat: FieldChange<CallFormat> = .keep,
        templates: FieldChange<NotificationTemplates> = .keep, credentials: CredentialChange = .keep
    ) async throws -> (provider: StoredProvider, created: Bool) {
        defer { snapshot.invalidate() }
        return try await StoreFailure.translating {
            try await pool.withTransaction { connection in
                let existing = try connection.queryPrepared(
                    "SELECT service FROM providers WHERE name = $1 FOR UPDATE", [provider.name.value]
                ).rows.first
                if let existing, try existing.string("service") != provider.service.rawValue {
                    let inUse = try connection.queryPrepared(
                        "SELECT EXISTS (SELECT 1 FROM devices WHERE provider = $1) AS in_use", [provider.name.value]
                    ).rows[0].bool("in_use")
                    if inUse {
                        throw RegistryError.conflict(
                            "provider \(provider.name.value) has devices; its service cannot change")
                    }
                }
                var row = try connection.queryPrepared(
                    """
                    INSERT INTO providers (name, service, topic, project_id, endpoint, call_format, templates)
                    VALUES ($1, $2, $3, $4, $5, COALESCE($6, 'stream'), COALESCE($7::jsonb, '{}'::jsonb))
                    ON CONFLICT (name) DO UPDATE
                       SET service = EXCLUDED.service, topic = EXCLUDED.topic, project_id = EXCLUDED.project_id,
                           endpoint = CASE WHEN $8::boolean AND providers.service = EXCLUDED.service
                                           THEN providers.endpoint ELSE EXCLUDED.endpoint END,
                           call_format = CASE WHEN $6 IS NULL THEN providers.call_format ELSE EXCLUDED.call_format END,
                           templates = CASE WHEN $7::jsonb IS NULL THEN providers.templates ELSE EXCLUDED.templates END,
                           updated_at = clock_timestamp(),
                           \(Self.credentialColumns.map { "\($0) = CASE WHEN providers.service = EXCLUDED.service THEN providers.\($0) END" }.joined(separator: ", "))
                    RETURNING \(Self.columns)
                    """,
                    [
                        provider.name.value, provider.service.rawValue, provider.topic, provider.projectID,
                        endpoint.newValue ?? nil, callFormat.newValue?.rawValue, templates.newValue?.json.text,
                        endpoint.isKept,
                    ]
                ).rows[0]
                if let update = credentials.update {
                    row = try connection.queryPrepared(
                        Self.updateCredentials + " RETURNING \(Self.columns)", [provider.name.value] + update
                    ).rows[0]
                }
                return (try Self.decode(row), existing == nil)
            }
        }
    }

    /// Changes only the credentials of provider `name`. Throws `.notFound` for an unknown name.
    public func setCredentials(_ change: CredentialChange, of name: ProviderName) async throws {
        guard let update = change.update else { return }
        defer { snapshot.invalidate() }
        try await StoreFailure.translating {
            let changed = try await pool.withConnection { connection in
                try connection.queryPrepared(Self.updateCredentials, [name.value] + update).affectedRows
            }
            if changed == 0 { throw RegistryError.notFound("provider \(name.value)") }
        }
    }

    public func all() async throws -> [StoredProvider] {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared("SELECT \(Self.columns) FROM providers ORDER BY name", []).rows.map(
                    Self.decode)
            }
        }
    }

    /// `all()`, from a snapshot read at most `maximumAge` ago when there is one: this store's own
    /// writes are seen at once, other processes' within `maximumAge` (see `ProviderSnapshot`).
    public func all(readWithin maximumAge: Duration) async throws -> [StoredProvider] {
        if let providers = snapshot.providers(readWithin: maximumAge) { return providers }
        let generation = snapshot.generation
        let readAt = ContinuousClock.now
        let providers = try await all()
        snapshot.store(providers, readStartingAt: generation, readAt: readAt)
        return providers
    }

    /// Throws `.notFound` for an unknown name.
    public func provider(named name: ProviderName) async throws -> StoredProvider {
        try await StoreFailure.translating {
            let rows = try await pool.withConnection { connection in
                try connection.queryPrepared("SELECT \(Self.columns) FROM providers WHERE name = $1", [name.value]).rows
            }
            guard let row = rows.first else { throw RegistryError.notFound("provider \(name.value)") }
            return try Self.decode(row)
        }
    }

    /// Removes a provider. Without `cascade` a provider that still has devices is a conflict;
    /// with it, its devices go in the same transaction. Throws `.notFound` for an unknown name.
    /// The provider is locked first, so a registration in flight (`DeviceStore.registerAll`)
    /// either commits before the cascade sees its devices or finds the provider gone.
    public func delete(_ name: ProviderName, cascade: Bool) async throws {
        defer { snapshot.invalidate() }
        try await StoreFailure.translating {
            try await pool.withTransaction { connection in
                _ = try connection.queryPrepared("SELECT 1 FROM providers WHERE name = $1 FOR UPDATE", [name.value])
                if cascade {
                    _ = try connection.queryPrepared("DELETE FROM devices WHERE provider = $1", [name.value])
                }
                let deleted: Int
                do {
                    deleted = try connection.queryPrepared("DELETE FROM providers WHERE name = $1", [name.value])
                        .affectedRows
                } catch PostgresError.foreignKeyViolation {
                    throw RegistryError.conflict(
                        "provider \(name.value) still has devices; delete them or pass ?cascade=true")
                }
                if deleted == 0 { throw RegistryError.notFound("provider \(name.value)") }
            }
            // Whose devices went is not known here: every read waits for the replica.
            if cascade { try await readReplica?.noteCommit(of: nil) }
        }
    }

    private static func decode(_ row: PostgresRow) throws -> StoredProvider {
        StoredProvider(
            provider: try Provider(
                name: try ProviderName(try row.string("name")),
                service: try PushService(try row.string("service")),
                topic: row["topic"], projectID: row["project_id"]),
            endpoint: row["endpoint"],
            callFormat: try CallFormat(try row.string("call_format")),
            templates: try decodeTemplates(try row.string("templates")),
            credentials: row["credential_fingerprint"].map { fingerprint in
                CredentialFacts(
                    teamID: row["credential_team_id"], keyID: row["credential_key_id"],
                    clientEmail: row["credential_client_email"], keyFingerprint: fingerprint)
            },
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"))
    }

    /// Stored templates were checked when saved; one that no longer parses is a data fault.
    private static func decodeTemplates(_ text: String) throws -> NotificationTemplates {
        do {
            return try NotificationTemplates.parse(try JSONParser.parse(text))
        } catch {
            throw PostgresError.decoding("the stored templates no longer parse: \(error)")
        }
    }
}
