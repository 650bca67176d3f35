import Foundation
import Postgres
import RegistryCore

/// A ring's one round trip: its claim and its users' devices.
extension CallEventStore {
    /// `claim`, and every device of `users` read in the same transaction, sent in one round trip
    /// on a connection of the urgent line. A ring needs both before it sends; read beside each
    /// other (the claim through the group commit, the devices through the read batcher in the
    /// pool's normal line) a ring waited for the slower of two draws, and the read queued behind a
    /// push job's statements. The devices come back only once the claim is committed, so nothing is
    /// sent for an id that is not durably claimed; when the read fails, the claim is rolled back
    /// with it and a retry rings. A duplicate's devices are read for nothing (a redelivery is rare
    /// next to a ring). The devices are in no particular order, disabled ones included, like
    /// `DeviceStore.pushTargets`.
    public func claimReadingDevices(
        id: String, digest: String, type: String, deadline: Date, of users: [UserID]
    ) async throws -> (claim: CallEventClaim, devices: [Device]) {
        let claim = Self.claimStatement(
            CallEventHandOver(id: id, digest: digest, type: type), deadline: deadline, job: nil)
        let devices: PostgresStatement = (Self.devicesOfUsersSQL, [users.map(\.value)])
        return try await StoreFailure.translating {
            try await pool.withConnection(priority: .urgent) { connection in
                let results = try connection.pipelineTransaction([claim, devices])
                return (try Self.claim(of: results[0]), try results[1].rows.map(DeviceColumns.device))
            }
        }
    }

    private static let devicesOfUsersSQL = "SELECT \(DeviceColumns.list) FROM devices WHERE user_id = ANY ($1::text[])"
}
