import Postgres

extension DeviceStore {
    /// Runs a read against the replica or the primary, as `ReadReplica` decides (the primary when
    /// there is no replica), passing the pool it chose.
    func reading<T: Sendable>(strong: Bool, _ body: (PostgresPool) async throws -> T) async throws -> T {
        guard let readReplica else { return try await body(pool) }
        return try await readReplica.read(strong: strong, body)
    }
}
