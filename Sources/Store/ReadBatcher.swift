import Metrics
import Postgres

/// Read batching: the reads waiting in one `BatchQueue` batch go to the server in one pipeline
/// (`PostgresConnection.pipelineEach`), each as if it ran alone. Under load this saves a round
/// trip, two thread hand-offs and the server's per-message wake-ups for all but one read of a
/// batch; at low load a read goes alone.
enum ReadBatcher {
    static func make(
        pool: PostgresPool, maxBatch: Int = 64, maxRunners: Int? = nil,
        recordBatchSize: @escaping @Sendable (Int) -> Void = { Recorder(label: "db_read_batch_size").record($0) }
    ) -> BatchQueue<PostgresStatement, PostgresResult> {
        BatchQueue(
            maxBatch: maxBatch,
            maxRunners: maxRunners ?? min(pool.configuration.readConnections, pool.configuration.poolSize),
            maxWait: pool.configuration.poolWaitTimeout,
            maxLength: pool.configuration.maxWaiting,
            recordBatchSize: recordBatchSize
        ) { statements in
            try await pool.withConnection { connection in
                try connection.pipelineEach(statements).map { $0.mapError { $0 as any Error } }
            }
        }
    }
}
