import Foundation

/// Applies `Migrations/NNNN_what.sql` in order, each in its own transaction, and records them in
/// `schema_migrations` with a checksum. A session advisory lock makes instances that start together
/// take turns; the later ones find nothing left to do. It needs a session of its own, so it
/// refuses a connection through a pooler (`MigrationError.behindPooler`).
public struct Migrator: Sendable {
    /// Arbitrary, fixed: every instance of the service must use the same one.
    static let advisoryLockKey: Int64 = 0x5245_4749_5354_5259  // "REGISTRY"

    public let migrations: [Migration]

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
    /// `checksumMismatch` before applying anything when an applied migration changed.
    @discardableResult
    public func migrate(_ pool: PostgresPool) async throws -> [Migration] {
        let applied = try await pool.withConnection { [migrations] connection in
            guard !connection.isBehindPooler else { throw MigrationError.behindPooler }
            return try connection.withoutTimeouts {
                _ = try connection.query("SELECT pg_advisory_lock($1)", [Self.advisoryLockKey])
                defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [Self.advisoryLockKey]) }
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
                let pending = migrations.filter { recorded[$0.version] == nil }
                for migration in pending {
                    try connection.transaction { connection in
                        try connection.execute(migration.sql)
                        _ = try connection.query(
                            "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                            [migration.version, migration.name, migration.checksum])
                    }
                }
                return pending.map(\.version)
            }
        }
        if !applied.isEmpty {
            pool.logger.notice("Applied migrations", metadata: ["versions": "\(applied)"])
        }
        return migrations.filter { applied.contains($0.version) }
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
