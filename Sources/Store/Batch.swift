import NIOConcurrencyHelpers
import Waiting

/// Requests a `BatchQueue` runner took out of the line together; it answers each exactly once,
/// with `answer` or `fail` (a second call is ignored).
final class Batch<Item: Sendable, Outcome: Sendable>: Sendable {
    let waiters: [Waiter<Item, Outcome>]
    let takenAt: ContinuousClock.Instant
    private let clock: any WaitClock
    private let metrics: BatchMetrics
    private let answered = NIOLockedValueBox(false)

    /// Records the batch's size and how long its requests waited (each arrived `maxWait` before
    /// its deadline).
    init(
        _ waiters: [Waiter<Item, Outcome>], clock: any WaitClock, maxWait: Duration, metrics: BatchMetrics
    ) {
        let takenAt = clock.now
        self.waiters = waiters
        self.takenAt = takenAt
        self.clock = clock
        self.metrics = metrics
        var queued = Duration.zero
        for waiter in waiters {
            if let deadline = waiter.deadline { queued += takenAt - (deadline - maxWait) }
        }
        metrics.size(waiters.count)
        metrics.queued(queued)
    }

    var items: [Item] { waiters.map(\.item) }

    /// One outcome per request, in order; any other count fails them all.
    func answer(_ outcomes: [Result<Outcome, any Error>]) {
        guard markAnswered() else { return }
        guard outcomes.count == waiters.count else {
            let error = BatchQueueError.outcomeCount(expected: waiters.count, got: outcomes.count)
            for waiter in waiters { waiter.resume(throwing: error) }
            return
        }
        for (waiter, outcome) in zip(waiters, outcomes) { waiter.resume(with: outcome) }
    }

    func fail(_ error: any Error) {
        guard markAnswered() else { return }
        for waiter in waiters { waiter.resume(throwing: error) }
    }

    var isAnswered: Bool { answered.withLockedValue { $0 } }

    /// Whether this call is the one that answers; records how long the batch took.
    private func markAnswered() -> Bool {
        let first = answered.withLockedValue { answered in
            defer { answered = true }
            return !answered
        }
        if first { metrics.duration(clock.now - takenAt) }
        return first
    }
}
