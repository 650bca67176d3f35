public enum MigrationError: Error, Sendable, Equatable {
    /// A `.sql` file not named `NNNN_what.sql`.
    case invalidFileName(String)
    case duplicateVersion(Int)
    /// Versions must run 1, 2, 3, … without gaps.
    case missingVersion(Int)
    /// An applied migration's file was edited afterwards. Add a new migration instead.
    case checksumMismatch(version: Int, name: String)
}
