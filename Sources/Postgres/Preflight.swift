/// Startup checks on the server before serving.
public enum Preflight {
    /// Logs the server version and throws `PreflightError.unsafeDurability` when `fsync` or
    /// `synchronous_commit` is off, unless `allowUnsafeDurability`.
    public static func check(_ pool: PostgresPool, allowUnsafeDurability: Bool) async throws -> ServerInfo {
        let row = try await pool.withConnection { connection in
            try connection.query(
                """
                SELECT current_setting('server_version') AS version,
                       current_setting('server_version_num') AS number,
                       current_setting('fsync') AS fsync,
                       current_setting('synchronous_commit') AS synchronous_commit
                """
            ).rows[0]
        }
        let info = ServerInfo(
            version: try row.string("version"), versionNumber: try row.int("number"),
            fsync: try row.string("fsync") == "on", synchronousCommit: try row.string("synchronous_commit"))
        pool.logger.info("Connected to PostgreSQL", metadata: ["version": "\(info.version)"])
        let unsafe =
            !info.fsync
            ? PreflightError.unsafeDurability(setting: "fsync", value: "off")
            : info.synchronousCommit == "off"
                ? PreflightError.unsafeDurability(setting: "synchronous_commit", value: "off") : nil
        if let unsafe {
            guard allowUnsafeDurability else { throw unsafe }
            pool.logger.warning("Running with unsafe durability, as allowed", metadata: ["reason": "\(unsafe)"])
        }
        return info
    }
}
