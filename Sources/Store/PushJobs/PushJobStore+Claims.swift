import Foundation
import Postgres
import RegistryCore

/// The workers' side: which jobs are live, claiming devices under a lease, renewing it,
/// recording outcomes and giving back what was not sent.
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

    /// Claims up to `limit` unclaimed devices of a live job (or ones whose lease ran out) for
    /// `lease`, with the devices as they are now. Nil when the job is no longer live (cancelled,
    /// expired, past its deadline): nothing of it may be sent. The job row is held `FOR SHARE`
    /// while claiming, so a cancel either comes first and is seen, or waits for this claim to
    /// commit and then sees it (and waits for it to be recorded).
    public func claim(job: String, limit: Int, lease: Duration) async throws -> PushJobClaim? {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                // Outside the claim: two claims upgrading their shared locks would deadlock.
                _ = try connection.queryPrepared(
                    "UPDATE push_jobs SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'",
                    [job])
                return try connection.transaction { connection -> PushJobClaim? in
                    let live = try connection.queryPrepared(
                        """
                        SELECT status IN ('queued', 'running') AND deadline_at > now() AS live, \
                        nextval('push_job_claims') AS claim FROM push_jobs WHERE id = $1 FOR SHARE
                        """, [job]
                    ).rows.first
                    guard let live, try live.bool("live") else { return nil }
                    let number = Int64(try live.int("claim"))
                    let rows = try connection.queryPrepared(
                        """
                        WITH picked AS (
                            SELECT device_id FROM push_job_deliveries
                             WHERE job_id = $1 AND job_created_at = \(Self.jobDay)
                               AND status = 'pending' AND (claimed_until IS NULL OR claimed_until < now())
                             ORDER BY device_id LIMIT $2 FOR UPDATE SKIP LOCKED),
                        claimed AS (
                            UPDATE push_job_deliveries d
                               SET claim = $3, claimed_until = now() + $4 * interval '1 millisecond',
                                   attempts = attempts + 1
                             WHERE d.job_id = $1 AND d.job_created_at = \(Self.jobDay)
                               AND d.device_id = ANY (ARRAY(SELECT device_id FROM picked))
                            RETURNING d.device_id AS delivery_device, d.user_id AS delivery_user)
                        SELECT c.delivery_device, \(Self.deviceColumns) FROM claimed c
                          LEFT JOIN devices dev ON dev.id = c.delivery_device AND dev.user_id = c.delivery_user
                        """, [job, limit, number, Self.milliseconds(lease)]
                    ).rows
                    return PushJobClaim(
                        number: number,
                        deliveries: try rows.map { row in
                            PushJobClaim.Delivery(
                                deviceID: Int64(try row.int("delivery_device")),
                                device: row["user_id"] == nil ? nil : try DeviceColumns.device(from: row))
                        })
                }
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    static let deviceColumns = DeviceColumns.list.split(separator: ",").map {
        "dev." + $0.trimmingCharacters(in: .whitespaces)
    }.joined(separator: ", ")

    /// Extends the lease of the claim's unrecorded devices. Returns whether the job is still
    /// live: when it is not (cancelled, expired), the worker starts no more of its pushes.
    public func renew(job: String, claim: Int64, lease: Duration) async throws -> Bool {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    WITH renewed AS (
                        UPDATE push_job_deliveries SET claimed_until = now() + $3 * interval '1 millisecond'
                         WHERE job_id = $1 AND claim = $2 AND status = 'pending' RETURNING 1)
                    SELECT status IN ('queued', 'running') AND deadline_at > now() AS live,
                           (SELECT count(*) FROM renewed) AS renewed
                      FROM push_jobs WHERE id = $1
                    """, [job, claim, Self.milliseconds(lease)]
                ).rows.first?.bool("live") ?? false
            }
        }
    }

    /// Records outcomes of the claim's devices and moves the job's counters with them, in one
    /// statement. A device whose lease ran out and was claimed again by another worker is not
    /// recorded here (its push was sent twice; the later claim's outcome counts). The job is
    /// `done` when nothing is pending any more.
    public func record(job: String, claim: Int64, outcomes: [PushResultRecord]) async throws {
        guard !outcomes.isEmpty else { return }
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                _ = try connection.queryPrepared(
                    """
                    WITH given AS (
                        SELECT * FROM unnest($3::bigint[], $4::text[], $5::text[], $6::text[])
                            AS g(device_id, status, reason, service_id)),
                    recorded AS (
                        UPDATE push_job_deliveries d
                           SET status = given.status, reason = given.reason, service_id = given.service_id,
                               finished_at = now(), claimed_until = NULL
                          FROM given
                         WHERE d.job_id = $1 AND d.job_created_at = \(Self.jobDay)
                           AND d.device_id = given.device_id AND d.claim = $2
                           AND d.status = 'pending'
                        RETURNING d.status),
                    counted AS (
                        SELECT count(*)::integer AS n,
                               count(*) FILTER (WHERE status = 'sent')::integer AS sent,
                               count(*) FILTER (WHERE status = 'token_invalid')::integer AS token_invalid,
                               count(*) FILTER (WHERE status = 'rejected')::integer AS rejected,
                               count(*) FILTER (WHERE status = 'failed')::integer AS failed,
                               count(*) FILTER (WHERE status = 'expired')::integer AS expired,
                               count(*) FILTER (WHERE status = 'skipped')::integer AS skipped
                          FROM recorded)
                    UPDATE push_jobs j
                       SET pending = j.pending - c.n, sent = j.sent + c.sent,
                           token_invalid = j.token_invalid + c.token_invalid, rejected = j.rejected + c.rejected,
                           failed = j.failed + c.failed, expired = j.expired + c.expired,
                           skipped = j.skipped + c.skipped,
                           status = CASE WHEN j.status = 'running' AND j.pending = c.n THEN 'done' ELSE j.status END,
                           finished_at = CASE WHEN j.status = 'running' AND j.pending = c.n THEN now()
                                              ELSE j.finished_at END
                      FROM counted c WHERE j.id = $1 AND c.n > 0
                    """,
                    [
                        job, claim, outcomes.map(\.deviceID), outcomes.map(\.status), outcomes.map(\.reason),
                        outcomes.map(\.serviceID),
                    ])
            }
        }
    }

    /// Gives back claimed devices that were not sent (the job stopped being live), so they count
    /// as unsent rather than in flight.
    public func release(job: String, claim: Int64, deviceIDs: [Int64]) async throws {
        guard !deviceIDs.isEmpty else { return }
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                _ = try connection.queryPrepared(
                    """
                    UPDATE push_job_deliveries SET claim = NULL, claimed_until = NULL
                     WHERE job_id = $1 AND claim = $2 AND status = 'pending' AND device_id = ANY ($3::bigint[])
                    """, [job, claim, deviceIDs])
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
