/// Why a connection could not be opened, for the log. Callers see `PostgresError.unavailable`.
struct ConnectFailure: Error, CustomStringConvertible {
    let description: String
}
