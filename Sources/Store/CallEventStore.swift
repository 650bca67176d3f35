import Foundation
import Postgres
import RegistryCore

/// Call events by id: the claim that makes them idempotent across instances, their results, and
/// their pruning.
public struct CallEventStore: Sendable {
    let pool: PostgresPool

    /// An id posted again within this window is a duplicate (or a conflict); after it, the id is
    /// a new event: a call platform's retries come within minutes, and an id seen again a day
    /// later is a new call that happens to reuse it, which must ring.
    public static let dedupeWindow: TimeInterval = 86_400

    public init(pool: PostgresPool) { self.pool = pool }

    private static let columns = """
        id, digest, type, state, deadline, result::text AS result, job_id::text AS job_id, created_at, finished_at,
        lease_until
        """

    /// Inserts the id as `running` with a lease (`StoredCallEvent.lease`), or takes over a row older
    /// than the dedupe window, or the same event whose poster stopped renewing its lease before
    /// the event's deadline (it died before its results were written); otherwise returns the row
    /// that holds the id. Two instances claiming the same id at once are serialised by its row,
    /// and exactly one gets `.claimed`.
    public func claim(id: String, digest: String, type: String, deadline: Date) async throws -> CallEventClaim {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try Self.claim(
                    on: connection, CallEventHandOver(id: id, digest: digest, type: type), deadline: deadline,
                    job: nil)
            }
        }
    }

    /// `claim`, on a connection whose transaction may hold more: with `job`, the event is sent as
    /// that push job, and its row is `done` at once, naming the job (`PushJobStore.enqueue`
    /// queues the job in the same transaction, so the row and the job exist together or not at all).
    static func claim(on connection: PostgresConnection, _ event: CallEventHandOver, deadline: Date, job: String?)
        throws -> CallEventClaim
    {
        let claimed = try connection.queryPrepared(
            """
            INSERT INTO call_events AS e (id, digest, type, state, deadline, result, job_id, finished_at, lease_until)
            SELECT $1, $2, $3, CASE WHEN $6::uuid IS NULL THEN 'running' ELSE 'done' END, $4,
                   CASE WHEN $6::uuid IS NOT NULL THEN '[]'::jsonb END, $6::uuid,
                   CASE WHEN $6::uuid IS NOT NULL THEN clock_timestamp() END,
                   CASE WHEN $6::uuid IS NULL THEN clock_timestamp() + make_interval(secs => $7) END
            ON CONFLICT (id) DO UPDATE
               SET digest = EXCLUDED.digest, type = EXCLUDED.type, state = EXCLUDED.state,
                   deadline = EXCLUDED.deadline, result = EXCLUDED.result, job_id = EXCLUDED.job_id,
                   created_at = clock_timestamp(), finished_at = EXCLUDED.finished_at,
                   lease_until = EXCLUDED.lease_until
             WHERE e.created_at < clock_timestamp() - make_interval(secs => $5)
            RETURNING \(columns)
            """, [event.id, event.digest, event.type, deadline, Int(dedupeWindow), job, Int(StoredCallEvent.lease)]
        ).rows.first
        if let claimed { return .claimed(try decode(claimed)) }
        if job == nil, let takenOver = try takeOver(on: connection, event) { return .claimed(takenOver) }
        // The row that won cannot have gone since: only the prune deletes, and only old rows.
        let existing = try connection.queryPrepared("SELECT \(columns) FROM call_events WHERE id = $1", [event.id])
            .rows[0]
        return .existing(try decode(existing))
    }

    /// The same event, still `running` past its lease and before its deadline: its poster died
    /// before writing results (maybe before sending anything), so this poster sends it. The row
    /// keeps its `created_at` and `deadline`: the ring's window is the first claim's.
    private static func takeOver(on connection: PostgresConnection, _ event: CallEventHandOver) throws
        -> StoredCallEvent?
    {
        try connection.queryPrepared(
            """
            UPDATE call_events SET lease_until = clock_timestamp() + make_interval(secs => $3)
             WHERE id = $1 AND digest = $2 AND state = 'running' AND job_id IS NULL
               AND lease_until < clock_timestamp() AND deadline > clock_timestamp()
            RETURNING \(columns)
            """, [event.id, event.digest, Int(StoredCallEvent.lease)]
        ).rows.first.map(decode)
    }

    /// Extends the lease of a claimed event its poster is still sending; a no-op once it is done.
    public func renewLease(id: String) async throws {
        try await StoreFailure.translating {
            _ = try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    UPDATE call_events SET lease_until = clock_timestamp() + make_interval(secs => $2)
                     WHERE id = $1 AND state = 'running'
                    """, [id, Int(StoredCallEvent.lease)])
            }
        }
    }

    /// Stores the results of a claimed event and marks it done; for one sent as a push job, the
    /// job's id and no results.
    public func finish(id: String, resultJSON: String, jobID: String? = nil) async throws {
        try await StoreFailure.translating {
            _ = try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    UPDATE call_events
                       SET state = 'done', result = $2::jsonb, job_id = $3::uuid, finished_at = clock_timestamp(),
                        lease_until = NULL
                     WHERE id = $1 AND state = 'running'
                    """, [id, resultJSON, jobID])
            }
        }
    }

    /// Gives a claimed id back when nothing was sent for it (the devices could not be read), so
    /// the platform's retry is a first post rather than a wait for a result that never comes.
    public func release(id: String) async throws {
        try await StoreFailure.translating {
            _ = try await pool.withConnection { connection in
                try connection.queryPrepared("DELETE FROM call_events WHERE id = $1 AND state = 'running'", [id])
            }
        }
    }

    public func find(id: String) async throws -> StoredCallEvent? {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared("SELECT \(Self.columns) FROM call_events WHERE id = $1", [id]).rows.first
                    .map(Self.decode)
            }
        }
    }

    /// Deletes events created before `cutoff`, `batchSize` rows per transaction so no long lock
    /// or transaction builds up; returns how many.
    public func prune(createdBefore cutoff: Date, batchSize: Int = 1000) async throws -> Int {
        try await StoreFailure.translating {
            precondition(batchSize > 0, "a prune batch holds at least one row")
            var total = 0
            while true {
                let deleted = try await pool.withConnection { connection in
                    try connection.queryPrepared(
                        """
                        DELETE FROM call_events WHERE id = ANY (ARRAY(
                            SELECT id FROM call_events WHERE created_at < $1 ORDER BY created_at LIMIT $2
                            FOR UPDATE SKIP LOCKED))
                        """, [cutoff, batchSize]
                    ).affectedRows
                }
                total += deleted
                if deleted < batchSize { return total }
            }
        }
    }

    private static func decode(_ row: PostgresRow) throws -> StoredCallEvent {
        guard let state = StoredCallEvent.State(rawValue: try row.string("state")) else {
            throw RegistryError.internal(reason: "call_events.state holds an unknown state")
        }
        return StoredCallEvent(
            id: try row.string("id"), digest: try row.string("digest"), type: try row.string("type"), state: state,
            deadline: try row.date("deadline"), resultJSON: row["result"], jobID: row["job_id"],
            createdAt: try row.date("created_at"),
            finishedAt: try row.optionalDate("finished_at"), leaseUntil: try row.optionalDate("lease_until"))
    }
}
