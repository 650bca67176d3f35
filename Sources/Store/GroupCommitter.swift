import Postgres

/// Group commit across requests: the registrations and unregistrations waiting in one
/// `BatchQueue` batch run as ONE transaction sent in one round trip (libpq pipeline mode), so one
/// WAL flush serves them all. `PostgresConfiguration.writeConnections` runners, so that reads and
/// key checks still find connections.
///
/// Each write still gets exactly its own outcome, and only after the commit that contains it.
/// Items run in arrival order inside their batch, so two writes to one token or user in a batch
/// end as they would one after the other. A batch that deadlocks with another batch or loses a
/// unique-index race is re-run item by item, for at most one statement timeout
/// (`WriteOperation.runTogether`); a batch that timed out, and a lost connection, fail every item
/// (the API answers 503), never as success.
///
/// A runner keeps its connection while requests wait and runs the batches back to back on the
/// pool thread (`runBackToBack`): once a batch has committed, the next one is sent before the
/// first is answered, so PostgreSQL runs it while the answers go out, and no batch waits for a
/// hand-off between the runner's task and the pool thread. Batches still go one at a time per
/// connection, in arrival order.
enum GroupCommitter {
    static func make(
        pool: PostgresPool, priority: PoolPriority = .normal, maxBatch: Int = 256, maxRunners: Int? = nil,
        afterCommit: (@Sendable (PostgresConnection, [WriteOperation]) throws -> Void)? = nil,
        metrics: BatchMetrics = .named("db_write")
    ) -> BatchQueue<WriteOperation, WriteOutcome> {
        let statementTimeout = pool.configuration.statementTimeout
        return BatchQueue(
            maxBatch: maxBatch,
            maxRunners: maxRunners ?? min(pool.configuration.writeConnections, pool.configuration.poolSize),
            maxWait: pool.configuration.poolWaitTimeout, maxLength: pool.configuration.maxWaiting,
            metrics: metrics
        ) { session in
            do {
                try await pool.withConnection(priority: priority) { connection in
                    try runBackToBack(
                        session, on: connection, statementTimeout: statementTimeout, afterCommit: afterCommit)
                }
            } catch {
                session.failUnanswered(error)
            }
        }
    }

    /// On the pool thread: runs the session's first batch, then each batch waiting by the time the
    /// one before has committed, until none waits or the connection is lost. Only sending the first
    /// batch throws (leaving it unanswered), so that the pool can run this again on a fresh
    /// connection when the one it gave had died before anything was sent.
    static func runBackToBack(
        _ session: BatchSession<WriteOperation, WriteOutcome>, on connection: PostgresConnection,
        statementTimeout: Duration, afterCommit: (@Sendable (PostgresConnection, [WriteOperation]) throws -> Void)?
    ) throws {
        var batch = session.first
        var sent = try SentWrites.send(batch.items, on: connection)
        while true {
            let received = Result { () throws in
                let received = try sent.receive(on: connection, retryUntil: .now + statementTimeout)
                // The read replica's note of the commit position (one more statement per batch).
                try afterCommit?(connection, sent.operations)
                return received
            }
            // The next batch goes out before this one is answered: PostgreSQL runs it meanwhile.
            var next: (batch: Batch<WriteOperation, WriteOutcome>, sent: SentWrites)?
            if !connection.isBroken, let following = session.next() {
                do {
                    next = (following, try SentWrites.send(following.items, on: connection))
                } catch {
                    following.fail(error)
                }
            }
            switch received.flatMap({ received in Result { try received.outcomes() } }) {
            case .success(let outcomes): batch.answer(outcomes)
            case .failure(let error): batch.fail(error)
            }
            guard let next else { return }
            (batch, sent) = next
        }
    }
}
