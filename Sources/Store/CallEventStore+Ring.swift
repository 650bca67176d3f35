import Foundation
import NIOConcurrencyHelpers
import Postgres
import RegistryCore

/// A ring's one round trip: its claim and its users' devices.
extension CallEventStore {
    /// `claim`, and every device of `users` read in the same transaction, sent in one round trip
    /// on a connection of the urgent line. A ring needs both before it sends; read beside each
    /// other (the claim through the group commit, the devices through the read batcher in the
    /// pool's normal line) a ring waited for the slower of two draws, and the read queued behind a
    /// push job's statements. Returns as soon as the claim and the read have answered, before
    /// their COMMIT has: the COMMIT waits for its WAL flush, behind whatever else the server is
    /// writing (a push job's outcomes), and a ring need not wait for it to send: a second claim of
    /// the same id waits for this transaction's end on the id's lock, so while PostgreSQL is up
    /// nothing rings twice. `RingClaim.committed` ends with the COMMIT, or throws when it failed
    /// (the claim is then not recorded): whatever answers the caller waits for it. When the read
    /// fails, the claim is rolled back with it and a retry rings. A duplicate's devices are read
    /// for nothing (a redelivery is rare next to a ring). The devices are in no particular order,
    /// disabled ones included, like `DeviceStore.pushTargets`.
    public func claimReadingDevices(
        id: String, digest: String, type: String, deadline: Date, of users: [UserID]
    ) async throws -> RingClaim {
        let claim = Self.claimStatement(
            CallEventHandOver(id: id, digest: digest, type: type), deadline: deadline, job: nil)
        let devices: PostgresStatement = (Self.devicesOfUsersSQL, [users.map(\.value)])
        let waiting = NIOLockedValueBox<CheckedContinuation<RingClaim.Answered, any Error>?>(nil)
        let answer = { @Sendable (result: Result<RingClaim.Answered, any Error>) in
            waiting.withLockedValue { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        var committing: Task<Void, any Error>?
        // Not cancelled with its caller: once the pipeline is sent, the claim may commit, and then
        // its ring must go out (a caller that hung up still gets its phone rung).
        let answered = try await withCheckedThrowingContinuation { continuation in
            waiting.withLockedValue { $0 = continuation }
            committing = Task { [pool] in
                do {
                    let asked = Date()
                    try await StoreFailure.translating {
                        try await pool.withConnection(priority: .urgent) { connection in
                            let connected = Date()
                            let sent = try connection.sendTransaction(
                                [claim, devices, (Self.serverClockSQL, [])], answeredBeforeCommit: true)
                            _ = try connection.receiveTransaction(sent) { results in
                                let clock = results[2].rows[0]
                                let times = RingClaimTimes(
                                    asked: asked, connected: connected, began: try clock.date("began"),
                                    read: try clock.date("read"))
                                answer(
                                    .success(
                                        RingClaim.Answered(
                                            claim: try Self.claim(of: results[0]),
                                            devices: try results[1].rows.map(DeviceColumns.device), times: times)))
                            }
                        }
                    }
                } catch {
                    answer(.failure(error))
                    throw error
                }
            }
        }
        guard let committing else { preconditionFailure("the claim's task starts before its answer") }
        return RingClaim(
            claim: answered.claim, devices: answered.devices, times: answered.times, committed: committing)
    }

    private static let devicesOfUsersSQL = "SELECT \(DeviceColumns.list) FROM devices WHERE user_id = ANY ($1::text[])"
    /// When the server began the transaction, and its clock after the read (before the COMMIT).
    private static let serverClockSQL = "SELECT transaction_timestamp() AS began, clock_timestamp() AS read"
}

/// A ring's claim as its statements answered, and its COMMIT still under way.
public struct RingClaim: Sendable {
    public let claim: CallEventClaim
    public let devices: [Device]
    public let times: RingClaimTimes
    /// Ends once the claim is committed; throws when the COMMIT failed or its answer was lost (the
    /// claim is then not recorded, or not known to be).
    public let committed: Task<Void, any Error>

    fileprivate struct Answered: Sendable {
        let claim: CallEventClaim
        let devices: [Device]
        let times: RingClaimTimes
    }
}

/// Where a ring's claim round trip spent its time, on the wall clock (the server's for `began` and
/// `read`; on one machine, or with synchronised clocks, comparable with the caller's): `asked`
/// when the claim's task asked the pool for a connection, `connected` when it had one on a pool
/// thread; `began` the way to the server and its backend's wake-up;
/// `read` the claim and the device read; the COMMIT (its WAL flush) comes after.
public struct RingClaimTimes: Sendable {
    public let asked: Date
    public let connected: Date
    public let began: Date
    public let read: Date
}
