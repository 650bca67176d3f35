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
    /// `DeviceStore.pushTargets`. `times` says where the round trip's time went.
    public func claimReadingDevices(
        id: String, digest: String, type: String, deadline: Date, of users: [UserID]
    ) async throws -> (claim: CallEventClaim, devices: [Device], times: RingClaimTimes) {
        let claim = Self.claimStatement(
            CallEventHandOver(id: id, digest: digest, type: type), deadline: deadline, job: nil)
        let devices: PostgresStatement = (Self.devicesOfUsersSQL, [users.map(\.value)])
        return try await StoreFailure.translating {
            try await pool.withConnection(priority: .urgent) { connection in
                let connected = Date()
                let results = try connection.pipelineTransaction([claim, devices, (Self.serverClockSQL, [])])
                let clock = results[2].rows[0]
                let times = RingClaimTimes(
                    connected: connected, began: try clock.date("began"), read: try clock.date("read"))
                return (try Self.claim(of: results[0]), try results[1].rows.map(DeviceColumns.device), times)
            }
        }
    }

    private static let devicesOfUsersSQL = "SELECT \(DeviceColumns.list) FROM devices WHERE user_id = ANY ($1::text[])"
    /// When the server began the transaction, and its clock after the read (before the COMMIT).
    private static let serverClockSQL = "SELECT transaction_timestamp() AS began, clock_timestamp() AS read"
}

/// Where a ring's claim round trip spent its time, on the wall clock (the server's for `began` and
/// `read`; on one machine, or with synchronised clocks, comparable with the caller's): `connected`
/// ends the wait for a pool connection; `began` the way to the server and its backend's wake-up;
/// `read` the claim and the device read; the caller's answer then waits for the COMMIT (its WAL
/// flush) and the way back.
public struct RingClaimTimes: Sendable {
    public let connected: Date
    public let began: Date
    public let read: Date
}
