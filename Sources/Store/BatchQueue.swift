import Postgres
import Synchronization

/// Requests that arrive while every runner is busy wait in a queue; whenever a runner is free it
/// takes everything waiting, up to `maxBatch`, and hands it to `perform` at once. No timer waits
/// for a batch to fill, so at low load a request goes alone and its latency stays one round trip;
/// under load the batches grow by themselves. Each request gets exactly its own outcome, and an
/// error thrown by `perform` (a lost connection, say) is every request's outcome.
///
/// A request that waited longer than `maxWait` before a runner took it is not run: it fails with
/// `PostgresError.poolTimeout` (503), as a wait for a pool connection does. When the database
/// hangs, the queue behind a stuck batch is shed instead of joining the next stuck batch; since
/// nothing of it was sent, failing it is safe.
///
/// Group commit (`GroupCommitter`) and read batching (`ReadBatcher`) are the two uses.
final class BatchQueue<Item: Sendable, Outcome: Sendable>: Sendable {
    typealias Perform = @Sendable ([Item]) async throws -> [Result<Outcome, any Error>]

    private struct Waiting {
        let item: Item
        let continuation: CheckedContinuation<Outcome, any Error>
        let enqueued: ContinuousClock.Instant
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

    let maxBatch: Int
    let maxRunners: Int
    let maxWait: Duration
    private let recordBatchSize: @Sendable (Int) -> Void
    /// Returns one outcome per item, in order.
    private let perform: Perform
    private let state = Mutex(State())

    init(
        maxBatch: Int, maxRunners: Int, maxWait: Duration, recordBatchSize: @escaping @Sendable (Int) -> Void,
        perform: @escaping Perform
    ) {
        self.maxBatch = maxBatch
        self.maxRunners = max(1, maxRunners)
        self.maxWait = maxWait
        self.recordBatchSize = recordBatchSize
        self.perform = perform
    }

    func submit(_ item: Item) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            let startRunner = state.withLock { state in
                state.queue.append(Waiting(item: item, continuation: continuation, enqueued: .now))
                guard state.runners < maxRunners else { return false }
                state.runners += 1
                return true
            }
            if startRunner { Task { await drain() } }
        }
    }

    private func drain() async {
        while true {
            let taken = state.withLock { state in
                let taken = state.take(maxBatch)
                if taken.isEmpty { state.runners -= 1 }
                return taken
            }
            if taken.isEmpty { return }
            let oldest = ContinuousClock.now - maxWait
            for waiting in taken where waiting.enqueued < oldest {
                waiting.continuation.resume(throwing: PostgresError.poolTimeout)
            }
            let batch = taken.filter { $0.enqueued >= oldest }
            if batch.isEmpty { continue }
            recordBatchSize(batch.count)
            do {
                let outcomes = try await perform(batch.map(\.item))
                guard outcomes.count == batch.count else {
                    throw BatchQueueError.outcomeCount(expected: batch.count, got: outcomes.count)
                }
                for (waiting, outcome) in zip(batch, outcomes) { waiting.continuation.resume(with: outcome) }
            } catch {
                for waiting in batch { waiting.continuation.resume(throwing: error) }
            }
        }
    }
}

/// `perform` broke its promise of one outcome per item; nobody may be left waiting.
enum BatchQueueError: Error {
    case outcomeCount(expected: Int, got: Int)
}
