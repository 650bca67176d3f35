/// Where a database stands against the migrations this build carries.
public enum MigrationStatus: Sendable, Equatable {
    case current
    case pending(Int)
    /// An applied migration's file changed since (see `MigrationError.checksumMismatch`).
    case mismatch(version: Int, name: String)
}
