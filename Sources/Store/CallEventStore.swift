import Foundation
import Postgres
import RegistryCore

/// Call events by id: the claim that makes them idempotent across instances, their results, and
/// their pruning. A ring's claim and its results are one statement each, through a group commit
/// (`CallEventWrite`): rings arriving together share one transaction and one WAL flush.
public struct CallEventStore: Sendable {
    let pool: PostgresPool
    let writes: BatchQueue<WriteOperation, WriteOutcome>

    /// An id posted again within this window is a duplicate (or a conflict); after it, the id is
    /// a new event: a call platform's retries come within minutes, and an id seen again a day
    /// later is a new call that happens to reuse it, which must ring.
    public static let dedupeWindow: TimeInterval = 86_400

    /// How many group-commit batches of call-event writes may run at once (each on a connection
    /// of the pool). One runner made every ring wait behind the batch in flight, so one batch held
    /// up on a busy machine (its pool thread or backend waiting for a core) held up every ring that
    /// arrived meanwhile: during a push job, claim p99 210–340 ms with one, 73 ms with four.
    public static let writeRunners = 4

    public init(pool: PostgresPool) {
        self.pool = pool
        // A ring waits for its claim before it sends: it goes ahead of a job's statements, and
        // not behind another ring's batch while a runner is free.
        writes = GroupCommitter.make(
            pool: pool, priority: .urgent, maxRunners: min(Self.writeRunners, pool.configuration.poolSize))
    }

    static let columns = """
        id, digest, type, state, deadline, result::text AS result, job_id::text AS job_id, created_at, finished_at,
        lease_until
        """

    /// The row of an id that holds it now: an id has at most one row inside the dedupe window
    /// (`claim_call_event()` serialises claims), and the condition lets a statement read only the
    /// recent partitions.
    static let current = "id = $1 AND created_at > clock_timestamp() - make_interval(secs => \(Int(dedupeWindow)))"

    /// Inserts the id as `running` with a lease (`StoredCallEvent.lease`), or takes over the same
    /// event whose poster stopped renewing its lease before the event's deadline (it died before
    /// its results were written), or a new row once the last one is older than the dedupe window;
    /// otherwise returns the row that holds the id. Two instances claiming the same id at once are
    /// serialised by an advisory lock on it, and exactly one gets `.claimed`.
    public func claim(id: String, digest: String, type: String, deadline: Date) async throws -> CallEventClaim {
        try await StoreFailure.translating {
            try await writes.submit(
                .callEvent(.claim(CallEventHandOver(id: id, digest: digest, type: type), deadline: deadline))
            ).callEvent.claim
        }
    }

    /// `claim`, on a connection whose transaction may hold more: with `job`, the event is sent as
    /// that push job, and its row is `done` at once, naming the job (`PushJobStore.enqueue`
    /// queues the job in the same transaction, so the row and the job exist together or not at all).
    static func claim(on connection: PostgresConnection, _ event: CallEventHandOver, deadline: Date, job: String?)
        throws -> CallEventClaim
    {
        let statement = claimStatement(event, deadline: deadline, job: job)
        return try claim(of: connection.queryPrepared(statement.sql, statement.parameters))
    }

    static func claimStatement(_ event: CallEventHandOver, deadline: Date, job: String?) -> PostgresStatement {
        (
            """
            SELECT claimed, \(columns)
              FROM claim_call_event($1, $2, $3, $4::timestamptz, $5::integer, $6::uuid, $7::integer)
            """,
            [event.id, event.digest, event.type, deadline, Int(dedupeWindow), job, Int(StoredCallEvent.lease)]
        )
    }

    static func claim(of result: PostgresResult) throws -> CallEventClaim {
        let row = result.rows[0]
        let event = try decode(row)
        return try row.bool("claimed") ? .claimed(event) : .existing(event)
    }

    /// Extends the lease of a claimed event its poster is still sending; a no-op once it is done.
    public func renewLease(id: String) async throws {
        try await StoreFailure.translating {
            _ = try await pool.withConnection { connection in
                try connection.queryPrepared(
                    """
                    UPDATE call_events SET lease_until = clock_timestamp() + make_interval(secs => $2)
                     WHERE \(Self.current) AND state = 'running'
                    """, [id, Int(StoredCallEvent.lease)])
            }
        }
    }

    /// Stores the results of a claimed event and marks it done; for one sent as a push job, the
    /// job's id and no results.
    public func finish(id: String, resultJSON: String, jobID: String? = nil) async throws {
        try await StoreFailure.translating {
            _ = try await writes.submit(.callEvent(.finish(id: id, resultJSON: resultJSON, jobID: jobID)))
        }
    }

    static func finishStatement(id: String, resultJSON: String, jobID: String?) -> PostgresStatement {
        (
            """
            UPDATE call_events
               SET state = 'done', result = $2::jsonb, job_id = $3::uuid, finished_at = clock_timestamp(),
                   lease_until = NULL
             WHERE \(current) AND state = 'running'
            """,
            [id, resultJSON, jobID]
        )
    }

    /// Gives a claimed id back when nothing was sent for it (the providers could not be read), so
    /// the platform's retry is a first post rather than a wait for a result that never comes.
    public func release(id: String) async throws {
        try await StoreFailure.translating {
            _ = try await pool.withConnection { connection in
                try connection.queryPrepared(
                    "DELETE FROM call_events WHERE \(Self.current) AND state = 'running'", [id])
            }
        }
    }

    public func find(id: String) async throws -> StoredCallEvent? {
        try await StoreFailure.translating {
            try await pool.withConnection { connection in
                try connection.queryPrepared(
                    "SELECT \(Self.columns) FROM call_events WHERE id = $1 ORDER BY created_at DESC LIMIT 1", [id]
                ).rows.first.map(Self.decode)
            }
        }
    }

    static func decode(_ row: PostgresRow) throws -> StoredCallEvent {
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
