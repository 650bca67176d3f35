import Postgres

extension DeviceStore {
    /// Runs a read of `key` (nil: of every key) against the replica or the primary, as
    /// `ReadReplica` decides (the primary when there is no replica), passing the pool it chose.
    /// The key is made only when there is a replica to ask (a user's key is a heap string for an
    /// id over ten bytes, on every push).
    func reading<T: Sendable>(
        strong: Bool, key: @autoclosure () -> String?, after token: WALPosition?,
        _ body: (PostgresPool) async throws -> T
    ) async throws -> T {
        guard let readReplica else { return try await body(pool) }
        return try await readReplica.read(strong: strong, key: key(), after: token, body)
    }

    /// The consistency token to answer a write with (`Registry-Consistency`): at or past every
    /// commit this instance has made. Nil without a replica, where every read is of the primary.
    public var consistencyToken: WALPosition? { readReplica?.latestCommit }
}
