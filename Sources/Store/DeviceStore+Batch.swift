import Postgres
import RegistryCore

extension DeviceStore {
    /// Registers many tokens as ONE transaction sent in one round trip (libpq pipeline mode), and
    /// answers each in order. Rejections (unknown provider, wrong type) are per-item results, not
    /// transaction failures. If the transaction fails for a reason that is not one item's (a
    /// deadlock between two batches, say), the items are re-run one by one on the same connection
    /// so that each still gets its own outcome. A lost connection fails the whole call: those
    /// outcomes are unknown.
    public func registerBatch(_ registrations: [DeviceRegistration]) async throws -> [Result<RegistrationOutcome, any Error>] {
        guard !registrations.isEmpty else { return [] }
        let cap = userDeviceCap
        return try await pool.withConnection { connection in
            let statements = registrations.map {
                (sql: RegisterStatement.sql, parameters: RegisterStatement.parameters($0, userDeviceCap: cap))
            }
            do {
                let results = try connection.pipelineTransaction(statements)
                return zip(results, registrations).map { result, registration in
                    Result { try RegisterStatement.outcome(of: result, for: registration) }
                }
            } catch let failure as PipelineFailure where !failure.error.isConnectionFailure {
                return registrations.map { registration in
                    Result { try RegisterStatement.run(registration, userDeviceCap: cap, on: connection) }
                }
            }
        }
    }
}

extension PostgresError {
    /// The connection broke: nothing more can be sent on it, and what was sent has an unknown fate.
    var isConnectionFailure: Bool {
        switch self {
        case .connectionLost, .unavailable: true
        default: false
        }
    }
}
