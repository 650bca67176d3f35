public enum MigrationError: Error, Sendable, Equatable {
    /// A `.sql` file not named `NNNN_what.sql`.
    case invalidFileName(String)
    case duplicateVersion(Int)
    /// Versions must run 1, 2, 3, … without gaps.
    case missingVersion(Int)
    /// An applied migration's file was edited afterwards. Add a new migration instead.
    case checksumMismatch(version: Int, name: String)
    /// The connection goes through a pooler (PgBouncer), where the migrations' session advisory
    /// lock could be taken on one server session and never released on another. Migrate over a
    /// direct connection (`DATABASE_LISTEN_URL`).
    case behindPooler
}
