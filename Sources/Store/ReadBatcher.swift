import Metrics
import Postgres

/// Read batching: the reads waiting in one `BatchQueue` batch go to the server in one pipeline
/// (`PostgresConnection.pipelineEach`), each as if it ran alone. Under load this saves a round
/// trip, two thread hand-offs and the server's per-message wake-ups for all but one read of a
/// batch; at low load a read goes alone.
enum ReadBatcher {
    typealias Statement = (sql: String, parameters: [(any PostgresEncodable)?])

    static func make(
        pool: PostgresPool, maxBatch: Int = 64, maxRunners: Int,
        recordBatchSize: @escaping @Sendable (Int) -> Void = { Recorder(label: "db_read_batch_size").record($0) }
    ) -> BatchQueue<Statement, PostgresResult> {
        BatchQueue(
            maxBatch: maxBatch, maxRunners: maxRunners, maxWait: pool.configuration.poolWaitTimeout,
            recordBatchSize: recordBatchSize
        ) { statements in
            try await pool.withConnection { connection in
                try connection.pipelineEach(statements).map { $0.mapError { $0 as any Error } }
            }
        }
    }
}
