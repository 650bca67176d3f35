import Foundation
import Postgres
import RegistryCore

/// The workers' side: which jobs are live, claiming a batch of devices under a lease, renewing
/// it, and recording the outcomes (migrations 0018, 0019).
extension PushJobStore {
    /// Jobs workers may send for, oldest first.
    public func liveJobs() async throws -> [LivePushJob] {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    SELECT id, kind, payload, created_at, deadline_at FROM push_jobs
                     WHERE status IN ('queued', 'running') AND deadline_at > now() ORDER BY created_at, id
                    """
                ).rows.map { row in
                    LivePushJob(
                        id: try row.string("id"), kind: try row.string("kind"), payload: try row.string("payload"),
                        createdAt: try row.date("created_at"), deadlineAt: try row.date("deadline_at"))
                }
            }
        }
    }

    /// Claims the next open batch of a live job for `lease` (one whose lease ran out, or that was
    /// given back, or not claimed yet), with at most `limit` of its devices not recorded yet, as
    /// they are now. Nil when the job is no longer live (cancelled, expired, past its deadline):
    /// nothing of it may be sent. One statement, which holds the job row `FOR KEY SHARE` until it
    /// commits: a cancel (which takes the row `FOR UPDATE`) either comes first and is seen, or
    /// waits for this claim and then sees it (and waits for it to be recorded); two claims never
    /// take the same batch (`SKIP LOCKED`).
    ///
    /// The key-share lock lets claims of one job run side by side and beside its outcome writes
    /// (which update the row's counters): the job row used to be updated by every claim, so each
    /// claim waited for the one before it and for every outcome write in progress, and an outcome
    /// write for the claim in progress, which reads its devices (on the fan-out bench a claim's
    /// statement ran 87 % of the time after the rings, the outcome writes waiting on it a quarter).
    /// A queued job is marked running by a second statement, after its first claims.
    public func claim(job: String, limit: Int, lease: Duration) async throws -> PushJobClaim? {
        let milliseconds = Self.milliseconds(lease)
        return try await StoreFailure.translating {
            try await pool.withConnection { connection -> PushJobClaim? in
                // Each device is looked up by its key, and must still be its user's (a LATERAL with
                // LIMIT is never flattened into a join, whose plan the planner may pick from stale
                // statistics: as a plain join, the fan-out bench measured 45 ms per claim, 90 µs
                // per push). The user is checked outside the lookup, which then can only take the
                // primary key: with both inside, the planner also took the `user_id` index, 20 %
                // slower per device. In one statement, not a transaction of three: the job row's
                // lock, which every outcome write of the job waits for, is held for no round trip
                // to this service (outcome writes waited 8 ms each on the fan-out bench).
                let rows = try connection.queryPrepared(
                    """
                    WITH live AS (
                        SELECT nextval('push_job_claims') AS claim, status = 'queued' AS starts FROM push_jobs
                         WHERE id = $1 AND status IN ('queued', 'running') AND deadline_at > now()
                           AND \(Self.commitsWithoutWaitingForFlush)
                           FOR KEY SHARE),
                    taken AS (
                        UPDATE push_job_batches b
                           SET claim = l.claim, claimed_until = now() + $2 * interval '1 millisecond',
                               attempts = b.attempts + 1
                          FROM live l
                         WHERE b.job_id = $1 AND b.batch = (
                               SELECT batch FROM push_job_batches
                                WHERE job_id = $1 AND finished_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
                                ORDER BY batch LIMIT 1 FOR UPDATE SKIP LOCKED)
                        RETURNING b.batch, b.recipients, b.recipient_users, b.device_ids)
                    SELECT l.claim, l.starts, t.batch, r.device_id AS delivery_device, \(Self.deviceColumns)
                      FROM live l
                      LEFT JOIN taken t ON true
                      LEFT JOIN LATERAL (
                          SELECT device_id, user_id FROM unnest(t.recipients, t.recipient_users) AS r(device_id, user_id)
                           WHERE device_id <> ALL (t.device_ids) ORDER BY device_id LIMIT $3) r ON true
                      LEFT JOIN LATERAL (SELECT * FROM devices d WHERE d.id = r.device_id LIMIT 1) dev
                        ON dev.user_id = r.user_id
                     ORDER BY r.device_id
                    """, [job, milliseconds, max(1, limit)]
                ).rows
                guard let first = rows.first else { return nil }
                if try first.bool("starts") { try Self.markRunning(job: job, on: connection) }
                let number = Int64(try first.int("claim"))
                guard first["batch"] != nil else {
                    return PushJobClaim(job: job, batch: 0, number: number, deliveries: [])
                }
                return PushJobClaim(
                    job: job, batch: Int64(try first.int("batch")), number: number,
                    deliveries: try rows.compactMap { row in
                        guard row["delivery_device"] != nil else { return nil }
                        return PushJobClaim.Delivery(
                            deviceID: Int64(try row.int("delivery_device")),
                            device: row["user_id"] == nil ? nil : try DeviceColumns.device(from: row))
                    })
            }
        }
    }

    /// A queued job becomes running at its first claims (the first to commit sets `started_at`).
    /// A failure here leaves it queued and loses nothing: the claim stands, and an outcome write
    /// marks a queued job as it would a running one (`finish`).
    private static func markRunning(job: String, on connection: PostgresConnection) throws {
        _ = try connection.queryPrepared(
            """
            UPDATE push_jobs SET status = 'running', started_at = coalesce(started_at, now())
             WHERE id = $1 AND status = 'queued' AND \(commitsWithoutWaitingForFlush)
            """, [job])
    }

    /// A condition that is always true and makes the statement's transaction commit without
    /// waiting for its WAL to reach the disk (`synchronous_commit = off` for it alone; the WAL
    /// writer flushes it within moments). A worker's claims, renewals and outcomes are written
    /// so; a ring's claim and every write a client is answered for still wait for the flush.
    ///
    /// Safe for a job because a crash of the database loses at most the last moments of commits,
    /// in order: what is left is the database as it was a moment earlier. Outcomes are written
    /// only after their pushes went out, so at any earlier moment every outcome recorded was sent;
    /// a lost outcome, claim or renewal leaves its devices pending, and they are claimed and sent
    /// again once their lease runs out (`claim`), as for an instance that died. Never a push
    /// counted and not sent. A claim number handed out again after such a crash only lets two
    /// claims hold one batch: both send it, the first to finish records it, the other nothing.
    ///
    /// Measured on the fan-out bench: the job's commits each waited for a flush of their own,
    /// and rings' commits queued behind them for the disk.
    static let commitsWithoutWaitingForFlush = "(SELECT set_config('synchronous_commit', 'off', true)) = 'off'"

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    static let deviceColumns = DeviceColumns.list.split(separator: ",").map {
        "dev." + $0.trimmingCharacters(in: .whitespaces)
    }.joined(separator: ", ")

    /// Extends the claim's lease. Returns whether the job is still live and the batch still this
    /// claim's: when not (cancelled, expired, or taken over after a lease that ran out), the
    /// worker starts no more of its pushes.
    public func renew(_ claim: PushJobClaim, lease: Duration) async throws -> Bool {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    WITH renewed AS (
                        UPDATE push_job_batches SET claimed_until = now() + $4 * interval '1 millisecond'
                         WHERE job_id = $1 AND batch = $2 AND claim = $3 AND \(Self.commitsWithoutWaitingForFlush)
                        RETURNING 1)
                    SELECT status IN ('queued', 'running') AND deadline_at > now() AND EXISTS (SELECT FROM renewed) AS live
                      FROM push_jobs WHERE id = $1
                    """, [claim.job, claim.batch, claim.number, Self.milliseconds(lease)]
                ).rows.first?.bool("live") ?? false
            }
        }
    }

    /// Ends a claim: appends the outcomes to its batch, moves the job's counters with them, and
    /// gives the batch back, in one statement. The batch is finished when every one of its
    /// recipients has an outcome; else the rest are claimed again (while the job is live) or stay
    /// pending (counted unsent once it is over). A claim whose batch was taken over by another
    /// worker after its lease ran out records nothing (those pushes were sent twice; the later
    /// claim's outcomes count). The job is `done` when nothing is pending any more.
    public func finish(_ claim: PushJobClaim, outcomes: [PushResultRecord]) async throws {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                _ = try connection.queryPrepared(
                    """
                    WITH batch AS (
                        UPDATE push_job_batches b
                           SET device_ids = b.device_ids || $4::bigint[], statuses = b.statuses || $5::text[],
                               reasons = b.reasons || $6::text[], service_ids = b.service_ids || $7::text[],
                               claim = NULL, claimed_until = NULL,
                               finished_at = CASE WHEN cardinality(b.device_ids) + cardinality($4::bigint[])
                                                       >= cardinality(b.recipients) THEN now() END
                         WHERE b.job_id = $1 AND b.batch = $2 AND b.claim = $3
                           AND \(Self.commitsWithoutWaitingForFlush)
                        RETURNING 1),
                    counted AS (
                        SELECT count(*)::integer AS n,
                               count(*) FILTER (WHERE status = 'sent')::integer AS sent,
                               count(*) FILTER (WHERE status = 'token_invalid')::integer AS token_invalid,
                               count(*) FILTER (WHERE status = 'rejected')::integer AS rejected,
                               count(*) FILTER (WHERE status = 'failed')::integer AS failed,
                               count(*) FILTER (WHERE status = 'expired')::integer AS expired,
                               count(*) FILTER (WHERE status = 'skipped')::integer AS skipped
                          FROM unnest($5::text[]) AS given(status) WHERE EXISTS (SELECT FROM batch))
                    UPDATE push_jobs j
                       SET pending = j.pending - c.n, sent = j.sent + c.sent,
                           token_invalid = j.token_invalid + c.token_invalid, rejected = j.rejected + c.rejected,
                           failed = j.failed + c.failed, expired = j.expired + c.expired,
                           skipped = j.skipped + c.skipped,
                           status = CASE WHEN j.status IN ('queued', 'running') AND j.pending = c.n THEN 'done'
                                         WHEN j.status = 'queued' THEN 'running' ELSE j.status END,
                           started_at = CASE WHEN j.status = 'queued' THEN coalesce(j.started_at, now())
                                             ELSE j.started_at END,
                           finished_at = CASE WHEN j.status IN ('queued', 'running') AND j.pending = c.n THEN now()
                                              ELSE j.finished_at END
                      FROM counted c WHERE j.id = $1 AND c.n > 0
                    """,
                    [
                        claim.job, claim.batch, claim.number, outcomes.map(\.deviceID), outcomes.map(\.status),
                        outcomes.map(\.reason), outcomes.map(\.serviceID),
                    ])
            }
        }
    }

    /// Ends live jobs whose deadline has passed as `expired`; what they left is unsent.
    /// Returns how many jobs ended.
    public func expireOverdue() async throws -> Int {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    UPDATE push_jobs SET status = 'expired', finished_at = now()
                     WHERE status IN ('queued', 'running') AND deadline_at <= now()
                    """
                ).affectedRows
            }
        }
    }

    /// For the metrics: devices queued in live jobs database-wide, and when the oldest live job
    /// with devices still to send was accepted.
    public func queueStatistics() async throws -> (queued: Int, oldest: Date?) {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                let row = try connection.queryPrepared(
                    """
                    SELECT coalesce(sum(pending), 0)::bigint AS queued,
                           min(created_at) FILTER (WHERE pending > 0) AS oldest
                      FROM push_jobs WHERE status IN ('queued', 'running')
                    """
                ).rows[0]
                return (try row.int("queued"), try row.optionalDate("oldest"))
            }
        }
    }
}
