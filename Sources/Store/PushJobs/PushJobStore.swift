import Foundation
import Postgres
import RegistryCore

/// Push jobs' SQL: taking a job in, reading and cancelling it. Every method is its own
/// transaction; when it returns, it has committed. Failures are `RegistryError`s.
public struct PushJobStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// What `enqueue` decided.
    public enum Admission: Sendable {
        case queued(PushJob)
        /// Accepting it would put more than the limit in the queue; the job was not queued.
        case full(queued: Int)
        /// The call event's id is held (within the dedupe window); the job was not queued.
        case eventTaken(StoredCallEvent)
    }

    /// Starts a job in `receiving`: invisible to workers until `enqueue`. Returns its id.
    public func begin(kind: String, payload: String, deadline: Date) async throws -> String {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    "INSERT INTO push_jobs (kind, payload, status, deadline_at) VALUES ($1, $2, 'receiving', $3) RETURNING id",
                    [kind, payload, deadline]
                ).rows[0].string("id")
            }
        }
    }

    /// Adds the devices of `users` that pass the filters (nil: no filter) as new batches of the job,
    /// each of up to `batchSize` devices in device order (migration 0019), numbered from
    /// `chunk × batchesPerChunk`: so calls for different chunks may run at once, and the batches
    /// are claimed in chunk order. Disabled devices are added too: the worker records them
    /// skipped. A user named in an earlier call adds its devices again: `removeRepeatedRecipients`
    /// takes them out before the job is queued. Returns how many devices were added.
    public func addRecipients(
        job: String, chunk: Int, users: [UserID], types: [String]?, providers: [String]?, batchSize: Int
    ) async throws -> Int {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    WITH found AS (
                        SELECT d.id, d.user_id, (row_number() OVER (ORDER BY d.id) - 1) / $5 AS part FROM devices d
                         WHERE d.user_id = ANY ($2::text[])
                           AND ($3::text[] IS NULL OR d.type = ANY ($3::text[]))
                           AND ($4::text[] IS NULL OR d.provider = ANY ($4::text[]))),
                    added AS (
                        INSERT INTO push_job_batches (job_id, batch, first_device, last_device, recipients, recipient_users)
                        SELECT $1, $6 + part,
                               min(id), max(id), array_agg(id ORDER BY id), array_agg(user_id ORDER BY id)
                          FROM found GROUP BY part
                        RETURNING cardinality(recipients) AS n),
                    counted AS (SELECT coalesce(sum(n), 0)::integer AS n FROM added)
                    UPDATE push_jobs SET total = total + n, pending = pending + n FROM counted
                     WHERE id = $1 RETURNING n
                    """, [job, users.map(\.value), types, providers, max(1, batchSize), chunk * Self.batchesPerChunk]
                ).rows[0].int("n")
            }
        }
    }

    /// Batch numbers each chunk of `addRecipients` has to itself: more than a chunk's users can
    /// have devices, and 2³¹ chunks fit in the `bigint`.
    public static let batchesPerChunk = 1 << 32

    /// Takes out of a job still `receiving` the devices a repeated user added more than once (each
    /// keeps its first place), so that every device is sent and counted once. Reads all of the
    /// job's recipients: the intake calls it only when it saw a user id twice (or two ids of one
    /// hash). Returns how many were taken out.
    @discardableResult
    public func removeRepeatedRecipients(job: String) async throws -> Int {
        try await StoreFailure.translating {
            try await pool.withTransaction { connection in
                let removed =
                    try connection.queryPrepared(
                        """
                        WITH placed AS (
                            SELECT b.batch, r.ord,
                                   row_number() OVER (PARTITION BY r.device ORDER BY b.batch, r.ord) AS nth
                              FROM push_jobs j JOIN push_job_batches b ON b.job_id = j.id,
                                   unnest(b.recipients) WITH ORDINALITY AS r(device, ord)
                             WHERE j.id = $1 AND j.status = 'receiving'),
                        repeats AS (
                            SELECT batch, array_agg(ord) AS places, count(*)::integer AS n FROM placed WHERE nth > 1
                             GROUP BY batch),
                        trimmed AS (
                            UPDATE push_job_batches b
                               SET recipients = coalesce((
                                       SELECT array_agg(device ORDER BY ord)
                                         FROM unnest(b.recipients) WITH ORDINALITY AS r(device, ord)
                                        WHERE ord <> ALL (p.places)), '{}'),
                                   recipient_users = coalesce((
                                       SELECT array_agg(user_id ORDER BY ord)
                                         FROM unnest(b.recipient_users) WITH ORDINALITY AS r(user_id, ord)
                                        WHERE ord <> ALL (p.places)), '{}')
                              FROM repeats p WHERE b.job_id = $1 AND b.batch = p.batch
                            RETURNING p.n),
                        counted AS (SELECT coalesce(sum(n), 0)::integer AS n FROM trimmed)
                        UPDATE push_jobs SET total = total - n, pending = pending - n FROM counted
                         WHERE id = $1 RETURNING n
                        """, [job]
                    ).rows.first?.int("n") ?? 0
                // A batch of repeats only is left empty: nothing to claim in it.
                _ = try connection.queryPrepared(
                    "DELETE FROM push_job_batches WHERE job_id = $1 AND cardinality(recipients) = 0", [job])
                return removed
            }
        }
    }

    /// Devices still to be sent in live jobs, database-wide: what `PUSH_JOB_MAX_QUEUED` limits.
    public func queuedRecipients() async throws -> Int {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(Self.queuedSQL).rows[0].int("queued")
            }
        }
    }

    static let queuedSQL =
        "SELECT coalesce(sum(pending), 0)::bigint AS queued FROM push_jobs WHERE status IN ('queued', 'running')"

    /// Hands a received job to the workers, unless the queue would then hold more than
    /// `maxQueued` devices. Admissions are serialised (a transaction-level advisory lock), so two
    /// jobs accepted at once cannot both squeeze under the limit. A job with no device is done
    /// at once.
    ///
    /// With `callEvent`, the job sends that event, and its id is claimed in the same transaction:
    /// the job is queued only if the id was free, and then the event's row names it. A crash or a
    /// failure at any point leaves both or neither, so an event never has two jobs, nor an id held
    /// with nothing sent.
    public func enqueue(job: String, maxQueued: Int, callEvent: CallEventHandOver? = nil) async throws -> Admission {
        try await StoreFailure.translating {
            do {
                return try await pool.withTransaction { connection in
                    _ = try connection.queryPrepared("SELECT pg_advisory_xact_lock(\(Self.admissionLock))")
                    let received = try connection.queryPrepared(
                        "SELECT pending, deadline_at FROM push_jobs WHERE id = $1 AND status = 'receiving'", [job]
                    ).rows.first
                    guard let received else { throw RegistryError.notFound("push job") }
                    // The event's id first: a post of an event already sent is answered with its
                    // job, however full the queue.
                    if let callEvent {
                        let claim = try CallEventStore.claim(
                            on: connection, callEvent, deadline: try received.date("deadline_at"), job: job)
                        if case .existing(let row) = claim { return .eventTaken(row) }
                    }
                    let queued = try connection.queryPrepared(Self.queuedSQL).rows[0].int("queued")
                    let pending = try received.int("pending")
                    // Thrown, so the transaction rolls the claim back with it.
                    if pending > 0, queued + pending > maxQueued { throw QueueFull(queued: queued) }
                    let row = try connection.queryPrepared(
                        """
                        UPDATE push_jobs SET status = CASE WHEN pending = 0 THEN 'done' ELSE 'queued' END,
                               finished_at = CASE WHEN pending = 0 THEN now() END
                         WHERE id = $1 RETURNING \(Self.columns)
                        """, [job]
                    ).rows[0]
                    return .queued(try Self.job(from: row))
                }
            } catch let full as QueueFull {
                return .full(queued: full.queued)
            }
        }
    }

    private struct QueueFull: Error {
        let queued: Int
    }

    /// "push_jobs admission" as a number, the key of the advisory lock `enqueue` takes.
    static let admissionLock = 7_301_300_013

    /// Deletes a job that will not be queued (refused, or its body failed), with its batches (and
    /// the recipients an instance before migration 0019 wrote); a job already queued is the
    /// workers' and stays.
    public func discard(job: String) async throws {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                _ = try connection.queryPrepared(
                    """
                    WITH discarded AS (DELETE FROM push_jobs WHERE id = $1 AND status = 'receiving' RETURNING created_at)
                    DELETE FROM push_job_deliveries WHERE job_id = $1 AND job_created_at = (SELECT created_at FROM discarded)
                    """, [job])
            }
        }
    }

    /// The job, or nil for an unknown id or one still `receiving` (not accepted yet).
    public func job(id: String) async throws -> PushJob? {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    "SELECT \(Self.columns) FROM push_jobs WHERE id = $1 AND status <> 'receiving'", [id]
                ).rows.first.map(Self.job)
            }
        }
    }

    /// Marks a live job cancelled: from its commit on, no worker claims another of its devices
    /// (claims hold the job row `FOR KEY SHARE`, which the `FOR UPDATE` here waits for; the update
    /// alone would not). Returns the job as it is then, cancelled or already over; nil for an
    /// unknown id.
    public func cancel(id: String) async throws -> PushJob? {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                _ = try connection.queryPrepared(
                    """
                    UPDATE push_jobs SET status = 'cancelled', finished_at = now()
                     WHERE id = (SELECT id FROM push_jobs WHERE id = $1 FOR UPDATE) AND status IN ('queued', 'running')
                    """, [id])
                return try connection.queryPrepared(
                    "SELECT \(Self.columns) FROM push_jobs WHERE id = $1 AND status <> 'receiving'", [id]
                ).rows.first.map(Self.job)
            }
        }
    }

    /// Batches of the job claimed by a worker whose lease still runs: pushes may be in flight.
    public func heldClaims(job: String) async throws -> Int {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    SELECT count(*)::integer AS n FROM push_job_batches
                     WHERE job_id = $1 AND finished_at IS NULL AND claim IS NOT NULL AND claimed_until > now()
                    """, [job]
                ).rows[0].int("n")
            }
        }
    }

    static let columns = """
        id, kind, status, created_at, deadline_at, started_at, finished_at, total, pending, sent, token_invalid, \
        rejected, failed, expired, skipped
        """

    static func job(from row: PostgresRow) throws -> PushJob {
        guard let status = PushJob.Status(rawValue: try row.string("status")) else {
            throw RegistryError.internal(reason: "unknown push job status")
        }
        var counts = PushJob.Counts()
        counts.total = try row.int("total")
        counts.pending = try row.int("pending")
        counts.sent = try row.int("sent")
        counts.tokenInvalid = try row.int("token_invalid")
        counts.rejected = try row.int("rejected")
        counts.failed = try row.int("failed")
        counts.expired = try row.int("expired")
        counts.skipped = try row.int("skipped")
        return PushJob(
            id: try row.string("id"), kind: try row.string("kind"), status: status, counts: counts,
            createdAt: try row.date("created_at"), deadlineAt: try row.date("deadline_at"),
            startedAt: try row.optionalDate("started_at"), finishedAt: try row.optionalDate("finished_at"))
    }
}
