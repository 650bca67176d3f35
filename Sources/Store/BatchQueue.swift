import DequeModule
import NIOConcurrencyHelpers
import Postgres

/// Requests that arrive while every runner is busy wait in a queue; whenever a runner is free it
/// takes everything waiting, up to `maxBatch`, and hands it to `perform` at once. No timer waits
/// for a batch to fill, so at low load a request goes alone and its latency stays one round trip;
/// under load the batches grow by themselves. Each request gets exactly its own outcome, and an
/// error thrown by `perform` (a lost connection, say) is every request's outcome.
///
/// Bounded in time and space. A request still queued `maxWait` after it arrived fails with
/// `PostgresError.poolTimeout` (503), as a wait for a pool connection does, even while every
/// runner is stuck: one task watches the oldest request's deadline. When the database hangs, the
/// queue behind a stuck batch is shed instead of joining the next stuck batch; since nothing of
/// it was sent, failing it is safe. A request that finds `maxLength` already queued is refused
/// at once with `PostgresError.queueFull` (503).
///
/// Group commit (`GroupCommitter`) and read batching (`ReadBatcher`) are the two uses.
final class BatchQueue<Item: Sendable, Outcome: Sendable>: Sendable {
    typealias Perform = @Sendable ([Item]) async throws -> [Result<Outcome, any Error>]

    private struct Waiting {
        let item: Item
        /// Unsafe, not checked: a checked one allocates a canary per request, and every path
        /// here (refusal, `drain`, `expireWaiting`) resumes a waiter only after taking it out of
        /// `queue` under the lock, so exactly once.
        let continuation: UnsafeContinuation<Outcome, any Error>
        let deadline: ContinuousClock.Instant
    }

    private struct State {
        /// In arrival order, so also in deadline order.
        var queue: Deque<Waiting> = []
        var runners = 0
        var isWatchingDeadlines = false

        mutating func take(_ limit: Int) -> [Waiting] {
            let batch = Array(queue.prefix(limit))
            queue.removeFirst(batch.count)
            return batch
        }
    }

    let maxBatch: Int
    let maxRunners: Int
    let maxWait: Duration
    let maxLength: Int
    private let recordBatchSize: @Sendable (Int) -> Void
    /// Returns one outcome per item, in order.
    private let perform: Perform
    private let state = NIOLockedValueBox(State())

    init(
        maxBatch: Int, maxRunners: Int, maxWait: Duration, maxLength: Int,
        recordBatchSize: @escaping @Sendable (Int) -> Void, perform: @escaping Perform
    ) {
        self.maxBatch = maxBatch
        self.maxRunners = max(1, maxRunners)
        self.maxWait = maxWait
        self.maxLength = maxLength
        self.recordBatchSize = recordBatchSize
        self.perform = perform
    }

    func submit(_ item: Item) async throws -> Outcome {
        try await withUnsafeThrowingContinuation { continuation in
            let (admitted, startRunner, watchDeadlines) = state.withLockedValue { state in
                guard state.queue.count < maxLength else { return (false, false, false) }
                // Taken under the lock, so the queue stays in deadline order.
                state.queue.append(Waiting(item: item, continuation: continuation, deadline: .now + maxWait))
                let startRunner = state.runners < maxRunners
                if startRunner { state.runners += 1 }
                defer { state.isWatchingDeadlines = true }
                return (true, startRunner, !state.isWatchingDeadlines)
            }
            guard admitted else { return continuation.resume(throwing: PostgresError.queueFull) }
            if startRunner { Task { await drain() } }
            if watchDeadlines { Task { await expireWaiting() } }
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLockedValue { state in
                let batch = state.take(maxBatch)
                if batch.isEmpty { state.runners -= 1 }
                return batch
            }
            if batch.isEmpty { return }
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

    /// Fails queued requests whose wait ran out: one task for all of them, sleeping until the
    /// oldest one's deadline, and ending when the queue is empty.
    private func expireWaiting() async {
        while true {
            let deadline = state.withLockedValue { state in
                guard let first = state.queue.first else {
                    state.isWatchingDeadlines = false
                    return ContinuousClock.Instant?.none
                }
                return first.deadline
            }
            guard let deadline else { return }
            try? await Task.sleep(until: deadline, clock: .continuous)
            let expired = state.withLockedValue { state in
                let now = ContinuousClock.now
                let count = state.queue.prefix { $0.deadline <= now }.count
                let expired = Array(state.queue.prefix(count))
                state.queue.removeFirst(count)
                return expired
            }
            for waiting in expired { waiting.continuation.resume(throwing: PostgresError.poolTimeout) }
        }
    }
}

/// `perform` broke its promise of one outcome per item; nobody may be left waiting.
enum BatchQueueError: Error {
    case outcomeCount(expected: Int, got: Int)
}
