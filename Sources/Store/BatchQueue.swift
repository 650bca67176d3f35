import Postgres
import Waiting

/// Requests that arrive while every runner is busy wait in a queue; whenever a runner is free it
/// takes everything waiting, up to `maxBatch`, and hands it to `perform` at once. No timer waits
/// for a batch to fill, so at low load a request goes alone and its latency stays one round trip;
/// under load the batches grow by themselves. Each request gets exactly its own outcome, and an
/// error thrown by `perform` (a lost connection, say) is every request's outcome.
///
/// A runner either performs one batch at a time (`perform`), or runs a `session`: it keeps what
/// the batches run on (a connection) and takes them back to back, so that it can send the next
/// batch before it answers the one before (`GroupCommitter`).
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
    /// Takes batches with `BatchSession.next()` and answers each it took; returns when it has
    /// none left (or cannot go on). The queue starts another session while requests wait.
    typealias Session = @Sendable (BatchSession<Item, Outcome>) async -> Void

    private enum Runner: Sendable {
        case perform(Perform)
        case session(Session)
    }

    let maxBatch: Int
    let maxRunners: Int
    let maxWait: Duration
    let maxLength: Int
    let metrics: BatchMetrics
    private let runner: Runner
    /// The requests waiting, beside the number of runners draining them. Not cancellable, as
    /// before: a queued request ends performed, expired or refused, whatever its caller does.
    private let queue: WaiterQueue<Int, Item, Outcome>

    /// `perform` returns one outcome per item, in order.
    convenience init(
        maxBatch: Int, maxRunners: Int, maxWait: Duration, maxLength: Int, clock: any WaitClock = SystemWaitClock(),
        recordBatchSize: @escaping @Sendable (Int) -> Void, perform: @escaping Perform
    ) {
        self.init(
            maxBatch: maxBatch, maxRunners: maxRunners, maxWait: maxWait, maxLength: maxLength, clock: clock,
            metrics: BatchMetrics(size: recordBatchSize), runner: .perform(perform))
    }

    convenience init(
        maxBatch: Int, maxRunners: Int, maxWait: Duration, maxLength: Int, clock: any WaitClock = SystemWaitClock(),
        metrics: BatchMetrics, session: @escaping Session
    ) {
        self.init(
            maxBatch: maxBatch, maxRunners: maxRunners, maxWait: maxWait, maxLength: maxLength, clock: clock,
            metrics: metrics, runner: .session(session))
    }

    private init(
        maxBatch: Int, maxRunners: Int, maxWait: Duration, maxLength: Int, clock: any WaitClock, metrics: BatchMetrics,
        runner: Runner
    ) {
        self.maxBatch = maxBatch
        self.maxRunners = max(1, maxRunners)
        self.maxWait = maxWait
        self.maxLength = maxLength
        self.metrics = metrics
        self.runner = runner
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
        guard startRunner else { return }
        switch runner {
        case .perform:
            // A `perform` runner only awaits (its batch runs on the pool's threads), so it runs
            // where the request that started it runs: a request handler's event loop. On the
            // global executor every batch cost a hand-off to one of its threads and back, with
            // a wake-up each way, more CPU than the batch's own answering.
            Task(executorPreference: Self.currentTaskExecutor) { await self.drain() }
        case .session:
            Task { await self.drain() }
        }
    }

    /// The calling task's executor preference; nil outside a task or without one.
    private static var currentTaskExecutor: (any TaskExecutor)? {
        withUnsafeCurrentTask { $0?.unownedTaskExecutor?.asTaskExecutor() }
    }

    private func drain() async {
        switch runner {
        case .perform(let perform):
            while let batch = take(retiringWhenEmpty: true) {
                do {
                    batch.answer(try await perform(batch.items))
                } catch {
                    batch.fail(error)
                }
            }
        case .session(let session):
            while let first = take(retiringWhenEmpty: true) {
                let batches = BatchSession(first: first, take: { self.take(retiringWhenEmpty: false) })
                await session(batches)
                batches.failUnanswered()
            }
        }
    }

    /// Up to `maxBatch` waiting requests, out of the line; nil when none waits, and then, when
    /// `retiringWhenEmpty`, the runner is no longer counted (atomically with finding it empty, so
    /// that a request queued just after starts another runner).
    private func take(retiringWhenEmpty: Bool) -> Batch<Item, Outcome>? {
        let waiters = queue.withLock { runners, waiters in
            let batch = waiters.popFirst(maxBatch)
            if batch.isEmpty && retiringWhenEmpty { runners -= 1 }
            return batch
        }
        if waiters.isEmpty { return nil }
        return Batch(waiters, clock: queue.clock, maxWait: maxWait, metrics: metrics)
    }
}

/// `perform` broke its promise of one outcome per item; nobody may be left waiting.
enum BatchQueueError: Error, Equatable {
    case outcomeCount(expected: Int, got: Int)
    /// A session ended without answering a batch it had taken.
    case unanswered
}
