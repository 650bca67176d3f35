/// Whether connections keep named prepared statements (`DATABASE_PREPARED_STATEMENTS`).
///
/// A transaction-pooling PgBouncer (1.18, before it learned prepared statements) hands each
/// transaction whichever server session is free, so a statement prepared in one transaction is
/// missing, or another client's, in the next. Off, every statement is sent unnamed: parsed and
/// planned with its parameters each time, in the same round trip.
public enum PreparedStatements: String, Sendable, CaseIterable {
    case on, off
    /// Off when the connection turns out to go through a connection pooler (see
    /// `PostgresConnection.isBehindPooler`), on otherwise.
    case auto
}
