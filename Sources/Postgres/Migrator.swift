import Foundation

/// Applies `Migrations/NNNN_what.sql` in order, each in its own transaction, and records them in
/// `schema_migrations` with a checksum. A session advisory lock makes instances that start together
/// take turns; the later ones find nothing left to do. It needs a session of its own, so it
/// refuses a connection through a pooler (`MigrationError.behindPooler`).
///
/// A migration never stalls traffic for long: each waits at most `lockTimeout` for a table lock
/// (an `ALTER TABLE devices` queued behind a long transaction would queue every registration
/// behind it), then gives up, logs why, and is tried again after a growing pause. A file whose
/// first line is `-- migration: no transaction` runs outside a transaction, so it can build an
/// index `CONCURRENTLY`; it must hold one statement and be safe to run again (`IF NOT EXISTS`),
/// and an INVALID index it names (left by a run that failed) is dropped before it runs.
public struct Migrator: Sendable {
    /// Arbitrary, fixed: every instance of the service must use the same one.
    static let advisoryLockKey: Int64 = 0x5245_4749_5354_5259  // "REGISTRY"
    /// `lock_not_available`: what PostgreSQL reports when `lock_timeout` ran out.
    static let lockNotAvailable = "55P03"

    public let migrations: [Migration]
    /// How long a migration's statement may wait for a lock before it gives up and is retried.
    public var lockTimeout: Duration = .seconds(5)
    /// The pause before the first retry; it doubles after each, up to `maxRetryDelay`.
    public var retryDelay: Duration = .seconds(1)
    public var maxRetryDelay: Duration = .seconds(30)

    public init(migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Reads `NNNN_what.sql` files (other files are ignored). Throws for a malformed name, a
    /// duplicate version or a gap in 1, 2, 3, ….
    public static func load(directory: URL) throws -> [Migration] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".sql") }
        return try load(
            files: files.map { ($0, try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8)) })
    }

    /// The same rules for files already read (the copies compiled into the binary).
    public static func load(files: [(name: String, sql: String)]) throws -> [Migration] {
        var migrations: [Migration] = []
        for (file, sql) in files where file.hasSuffix(".sql") {
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]),
                stem[..<underscore].allSatisfy(\.isASCII), underscore != stem.index(before: stem.endIndex)
            else { throw MigrationError.invalidFileName(file) }
            migrations.append(
                Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (position, migration) in migrations.enumerated() where migration.version != position + 1 {
            let isDuplicate = position > 0 && migrations[position - 1].version == migration.version
            throw isDuplicate
                ? MigrationError.duplicateVersion(migration.version) : MigrationError.missingVersion(position + 1)
        }
        return migrations
    }

    /// Applies what is pending and returns it (empty when the database was current). Throws
    /// `checksumMismatch` before applying anything when an applied migration changed. A migration
    /// that ran out of `lockTimeout` is retried until it succeeds or the task is cancelled.
    @discardableResult
    public func migrate(_ pool: PostgresPool) async throws -> [Migration] {
        var delay = retryDelay
        var applied: [Int] = []
        while true {
            do {
                applied += try await applyPending(pool)
                break
            } catch LockWait.timedOut(let migration, let appliedBefore) {
                applied += appliedBefore
                pool.logger.warning(
                    "migration gave up waiting for a lock, so that requests are not queued behind it; retrying",
                    metadata: [
                        "version": "\(migration.version)", "name": "\(migration.name)",
                        "lock_timeout_ms": "\(lockTimeout.roundedUpMilliseconds)",
                        "retry_in_ms": "\(delay.roundedUpMilliseconds)",
                        "hint": "a long transaction holds a lock on a table the migration changes",
                    ])
                try await Task.sleep(for: delay)
                delay = min(delay * 2, maxRetryDelay)
            }
        }
        if !applied.isEmpty {
            pool.logger.notice("Applied migrations", metadata: ["versions": "\(applied)"])
        }
        return migrations.filter { applied.contains($0.version) }
    }

    private enum LockWait: Error {
        /// `migration` ran out of `lockTimeout`; `applied` were recorded before it.
        case timedOut(Migration, applied: [Int])
    }

    /// One attempt: under the advisory lock, applies what is pending in order and returns the
    /// versions recorded. Throws `LockWait.timedOut` when a statement ran out of `lockTimeout`
    /// (what it did was rolled back, or for a migration outside a transaction, left for the next
    /// attempt to clean up).
    private func applyPending(_ pool: PostgresPool) async throws -> [Int] {
        try await pool.withConnection { [migrations, lockTimeout] connection in
            guard !connection.isBehindPooler else { throw MigrationError.behindPooler }
            return try connection.withoutTimeouts {
                // Taken before lock_timeout is set: another instance migrating is waited for.
                _ = try connection.query("SELECT pg_advisory_lock($1)", [Self.advisoryLockKey])
                defer {
                    _ = try? connection.query("RESET lock_timeout")
                    _ = try? connection.query("SELECT pg_advisory_unlock($1)", [Self.advisoryLockKey])
                }
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version integer PRIMARY KEY,
                        name text NOT NULL,
                        checksum text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """)
                let recorded = try Self.recordedChecksums(connection)
                if let changed = Self.firstMismatch(migrations, recorded) { throw changed }
                try connection.execute("SET lock_timeout TO \(lockTimeout.roundedUpMilliseconds)")
                var applied: [Int] = []
                for migration in migrations where recorded[migration.version] == nil {
                    do {
                        try Self.apply(migration, on: connection)
                    } catch PostgresError.server(let sqlstate, _) where sqlstate == Self.lockNotAvailable {
                        throw LockWait.timedOut(migration, applied: applied)
                    }
                    applied.append(migration.version)
                }
                return applied
            }
        }
    }

    private static func apply(_ migration: Migration, on connection: PostgresConnection) throws {
        let record = "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)"
        guard migration.runsInTransaction else {
            try dropInvalidIndexes(namedIn: migration, on: connection)
            try connection.execute(migration.sql)
            _ = try connection.query(record, [migration.version, migration.name, migration.checksum])
            return
        }
        try connection.transaction { connection in
            try connection.execute(migration.sql)
            _ = try connection.query(record, [migration.version, migration.name, migration.checksum])
        }
    }

    /// A `CREATE INDEX CONCURRENTLY` that failed (a lock timeout, a duplicate) leaves an INVALID
    /// index behind, which `IF NOT EXISTS` would then keep for good: drop the ones the migration
    /// names, so that it builds them afresh.
    private static func dropInvalidIndexes(namedIn migration: Migration, on connection: PostgresConnection) throws {
        let invalid = try connection.query(
            """
            SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE NOT i.indisvalid AND c.relnamespace = current_schema()::regnamespace
            """
        ).rows.map { try $0.string("name") }
        let words = Set(
            migration.sql.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
        for name in invalid where words.contains(name.lowercased()) {
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            try connection.execute("DROP INDEX CONCURRENTLY IF EXISTS \(quoted)")
        }
    }

    /// For /readyz: the database answers and has every migration, unchanged.
    public func isReady(_ pool: PostgresPool) async -> Bool {
        (try? await status(pool)) == .current
    }

    /// Whether the database has every migration, unchanged.
    public func status(_ pool: PostgresPool) async throws -> MigrationStatus {
        let recorded = try await pool.withConnection { connection in
            let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
            return try exists.rows[0].bool("present") ? try Self.recordedChecksums(connection) : [:]
        }
        if case .checksumMismatch(let version, let name) = Self.firstMismatch(migrations, recorded) {
            return .mismatch(version: version, name: name)
        }
        let pending = migrations.count { recorded[$0.version] == nil }
        return pending == 0 ? .current : .pending(pending)
    }

    private static func recordedChecksums(_ connection: PostgresConnection) throws -> [Int: String] {
        var checksums: [Int: String] = [:]
        for row in try connection.query("SELECT version, checksum FROM schema_migrations").rows {
            checksums[try row.int("version")] = try row.string("checksum")
        }
        return checksums
    }

    /// Versions recorded but no longer shipped are ignored: an older build may run during a rollout.
    private static func firstMismatch(_ migrations: [Migration], _ recorded: [Int: String]) -> MigrationError? {
        migrations.first { migration in recorded[migration.version].map { $0 != migration.checksum } ?? false }
            .map { MigrationError.checksumMismatch(version: $0.version, name: $0.name) }
    }
}
