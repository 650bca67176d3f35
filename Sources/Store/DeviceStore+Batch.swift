import Postgres
import RegistryCore

extension DeviceStore {
    /// Registers many tokens as ONE transaction sent in one round trip, each answered in order;
    /// rejections (unknown provider, wrong type) are per-item failures. A lost connection throws
    /// `.unavailable`: those outcomes are unknown.
    public func registerBatch(_ registrations: [DeviceRegistration]) async throws -> [Result<
        RegistrationOutcome, any Error
    >] {
        guard !registrations.isEmpty else { return [] }
        let operations = registrations.map { WriteOperation.register($0, userDeviceCap: userDeviceCap) }
        return try await StoreFailure.translating {
            try await pool.withConnection { connection in
                let outcomes = try WriteOperation.runTogether(
                    operations, on: connection, retryUntil: .now + pool.configuration.statementTimeout)
                try readReplica?.noteCommit(of: operations.flatMap(\.readKeys), on: connection)
                return outcomes
            }
        }.map { result in result.map(\.registration).mapError(StoreFailure.domain) }
    }
}
