import Metrics
import Postgres
import Synchronization

/// Group commit across requests. Writes that arrive while connections are busy wait in a queue;
/// whenever a runner (`PostgresConfiguration.writeConnections` of them, so reads and key checks
/// still find connections) is free it takes everything waiting, up to `maxBatch`, and runs it as
/// ONE transaction sent in one round trip (libpq pipeline mode): one WAL flush for the lot. No timer waits for a batch to fill, so at low load a write goes alone
/// and its latency stays one round trip.
///
/// Each write still gets exactly its own outcome, and only after the commit that contains it.
/// Items run in arrival order inside their batch, so two writes to one token or user in a batch
/// end as they would one after the other. A batch that fails for a reason that is not one item's
/// (a deadlock with another batch, say) is re-run item by item; a lost connection fails every item
/// of the batch as unknown (the API answers 503), never as success.
final class GroupCommitter: Sendable {
    private struct Waiting {
        let operation: WriteOperation
        let continuation: CheckedContinuation<WriteOutcome, any Error>
    }

    private struct State {
        var queue: [Waiting] = []
        var head = 0
        var runners = 0

        mutating func take(_ limit: Int) -> [Waiting] {
            let end = min(queue.count, head + limit)
            let batch = Array(queue[head..<end])
            head = end
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            return batch
        }
    }

    let pool: PostgresPool
    let maxBatch: Int
    let maxRunners: Int
    /// Sees every batch's size; by default the `db_write_batch_size` histogram, which shows
    /// operators how much group commit is saving.
    let recordBatchSize: @Sendable (Int) -> Void
    private let state = Mutex(State())

    init(
        pool: PostgresPool, maxBatch: Int = 256, maxRunners: Int? = nil,
        recordBatchSize: @escaping @Sendable (Int) -> Void = { Recorder(label: "db_write_batch_size").record($0) }
    ) {
        self.pool = pool
        self.maxBatch = maxBatch
        self.maxRunners = maxRunners ?? min(pool.configuration.writeConnections, pool.configuration.poolSize)
        self.recordBatchSize = recordBatchSize
    }

    func submit(_ operation: WriteOperation) async throws -> WriteOutcome {
        try await withCheckedThrowingContinuation { continuation in
            let startRunner = state.withLock { state in
                state.queue.append(Waiting(operation: operation, continuation: continuation))
                guard state.runners < maxRunners else { return false }
                state.runners += 1
                return true
            }
            if startRunner { Task { await drain() } }
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state in
                let batch = state.take(maxBatch)
                if batch.isEmpty { state.runners -= 1 }
                return batch
            }
            if batch.isEmpty { return }
            await run(batch)
        }
    }

    private func run(_ batch: [Waiting]) async {
        recordBatchSize(batch.count)
        let operations = batch.map(\.operation)
        do {
            let outcomes = try await pool.withConnection { connection in
                try WriteOperation.runTogether(operations, on: connection)
            }
            for (waiting, outcome) in zip(batch, outcomes) { waiting.continuation.resume(with: outcome) }
        } catch {
            for waiting in batch { waiting.continuation.resume(throwing: error) }
        }
    }
}
