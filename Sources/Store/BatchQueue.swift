import Postgres
import Waiting

/// Requests that arrive while every runner is busy wait in a queue; whenever a runner is free it
/// takes everything waiting, up to `maxBatch`, and hands it to `perform` at once. No timer waits
/// for a batch to fill, so at low load a request goes alone and its latency stays one round trip;
/// under load the batches grow by themselves. Each request gets exactly its own outcome, and an
/// error thrown by `perform` (a lost connection, say) is every request's outcome.
///
/// Bounded in time and space. A request still queued `maxWait` after it arrived fails with
/// `PostgresError.poolTimeout` (503), as a wait for a pool connection does, even while every
/// runner is stuck: the queue's one watcher task expires it. When the database hangs, the
/// queue behind a stuck batch is shed instead of joining the next stuck batch; since nothing of
/// it was sent, failing it is safe. A request that finds `maxLength` already queued is refused
/// at once with `PostgresError.queueFull` (503).
///
/// Group commit (`GroupCommitter`) and read batching (`ReadBatcher`) are the two uses.
final class BatchQueue<Item: Sendable, Outcome: Sendable>: Sendable {
    typealias Perform = @Sendable ([Item]) async throws -> [Result<Outcome, any Error>]

    let maxBatch: Int
    let maxRunners: Int
    let maxWait: Duration
    let maxLength: Int
    private let recordBatchSize: @Sendable (Int) -> Void
    /// Returns one outcome per item, in order.
    private let perform: Perform
    /// The requests waiting, beside the number of runners draining them. Not cancellable, as
    /// before: a queued request ends performed, expired or refused, whatever its caller does.
    private let queue: WaiterQueue<Int, Item, Outcome>

    init(
        maxBatch: Int, maxRunners: Int, maxWait: Duration, maxLength: Int, clock: any WaitClock = SystemWaitClock(),
        recordBatchSize: @escaping @Sendable (Int) -> Void, perform: @escaping Perform
    ) {
        self.maxBatch = maxBatch
        self.maxRunners = max(1, maxRunners)
        self.maxWait = maxWait
        self.maxLength = maxLength
        self.recordBatchSize = recordBatchSize
        self.perform = perform
        queue = WaiterQueue(
            0, maximumWaiting: maxLength, timeoutError: PostgresError.poolTimeout, fullError: PostgresError.queueFull,
            clock: clock)
    }

    /// Requests waiting for a runner.
    var waiting: Int { queue.count }

    func submit(_ item: Item) async throws -> Outcome {
        try await queue.wait(
            for: item, until: queue.clock.now + maxWait, cancellable: false, admit: { _, _ in nil },
            whenQueued: startRunnerIfNeeded)
    }

    /// `submit` for a caller that is not a task (a request answered from its event loop):
    /// `completion` runs once, on the runner's thread, or at once when the request is refused.
    func submit(_ item: Item, completion: @escaping @Sendable (Result<Outcome, any Error>) -> Void) {
        queue.enqueue(
            item, until: queue.clock.now + maxWait, admit: { _, _ in nil }, whenQueued: startRunnerIfNeeded,
            completion: completion)
    }

    private func startRunnerIfNeeded() {
        let startRunner = queue.withLockedValue { runners in
            guard runners < maxRunners else { return false }
            runners += 1
            return true
        }
        if startRunner { Task { await drain() } }
    }

    private func drain() async {
        while true {
            let batch = queue.withLock { runners, waiters in
                let batch = waiters.popFirst(maxBatch)
                if batch.isEmpty { runners -= 1 }
                return batch
            }
            if batch.isEmpty { return }
            recordBatchSize(batch.count)
            do {
                let outcomes = try await perform(batch.map(\.item))
                guard outcomes.count == batch.count else {
                    throw BatchQueueError.outcomeCount(expected: batch.count, got: outcomes.count)
                }
                for (waiter, outcome) in zip(batch, outcomes) { waiter.resume(with: outcome) }
            } catch {
                for waiter in batch { waiter.resume(throwing: error) }
            }
        }
    }
}

/// `perform` broke its promise of one outcome per item; nobody may be left waiting.
enum BatchQueueError: Error {
    case outcomeCount(expected: Int, got: Int)
}
