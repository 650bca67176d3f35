import Metrics
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
enum GroupCommitter {
    static func make(
        pool: PostgresPool, priority: PoolPriority = .normal, maxBatch: Int = 256, maxRunners: Int? = nil,
        afterCommit: (@Sendable (PostgresConnection, [WriteOperation]) throws -> Void)? = nil,
        recordBatchSize: @escaping @Sendable (Int) -> Void = { Recorder(label: "db_write_batch_size").record($0) }
    ) -> BatchQueue<WriteOperation, WriteOutcome> {
        BatchQueue(
            maxBatch: maxBatch,
            maxRunners: maxRunners ?? min(pool.configuration.writeConnections, pool.configuration.poolSize),
            maxWait: pool.configuration.poolWaitTimeout, maxLength: pool.configuration.maxWaiting,
            recordBatchSize: recordBatchSize
        ) { operations in
            try await pool.withConnection(priority: priority) { connection in
                let outcomes = try WriteOperation.runTogether(
                    operations, on: connection, retryUntil: .now + pool.configuration.statementTimeout)
                // The read replica's note of the commit position (one more statement per batch).
                try afterCommit?(connection, operations)
                return outcomes
            }
        }
    }
}
