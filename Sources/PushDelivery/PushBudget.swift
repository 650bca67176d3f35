import Waiting

/// How many pushes one provider may have in flight at once, so a provider whose endpoint hangs
/// or answers 429 to everything fills only its own budget and never delays another provider's
/// pushes. A push waits for a slot in FIFO order within its lane, and only until its deadline:
/// one that gets no slot in time is never sent (late is worse than not at all for a ring).
///
/// Two lanes share the budget. `interactive` (a `POST /v1/push`, a ring) may use all of it;
/// `bulk` (background fan-out jobs) at most `bulkLimit` slots, and a bulk push starts only while
/// no interactive push is waiting, so a big job never makes a ring queue behind it for more
/// than the pushes already in flight.
///
/// The queue is bounded (`maximumWaiting`): past it a push is refused at once, as it would be at
/// its deadline, rather than piling up memory behind a provider that has stopped answering.
public final class PushBudget: Sendable {
    /// The lane is also the waiter queue's lane index.
    public enum Lane: Int, Sendable {
        case interactive
        case bulk
    }

    private struct State {
        var inFlight = 0
        var bulkInFlight = 0
    }

    /// Slots in all, how many of them bulk pushes may hold, and how many pushes may wait.
    public let limit: Int
    public let bulkLimit: Int
    public let maximumWaiting: Int
    /// The slots in use, beside the pushes waiting in their lanes.
    private let queue: WaiterQueue<State, Void, Void>

    /// `bulkShare` is the fraction of `limit` bulk pushes may hold (at least one slot);
    /// `maximumWaiting` defaults to 64 times `limit`.
    public init(limit: Int, bulkShare: Double, maximumWaiting: Int? = nil, clock: any WaitClock = SystemWaitClock()) {
        precondition(limit >= 1 && (0...1).contains(bulkShare))
        self.limit = limit
        bulkLimit = max(1, Int((Double(limit) * bulkShare).rounded(.down)))
        self.maximumWaiting = maximumWaiting ?? limit * 64
        queue = WaiterQueue(State(), lanes: 2, maximumWaiting: self.maximumWaiting, clock: clock)
    }

    /// Runs `body` holding a slot of `lane`; nil, without running it, when no slot came before
    /// `deadline`, the task was cancelled while waiting, or the queue was full. A free slot is taken at once, even
    /// past the deadline: `body` judges its own deadline, so only the wait is blamed on the budget.
    public func withSlot<T>(
        _ lane: Lane, before deadline: ContinuousClock.Instant, _ body: () async throws -> T
    ) async rethrows -> T? {
        guard await acquire(lane, before: deadline) else { return nil }
        defer { release(lane) }
        return try await body()
    }

    /// Pushes holding a slot, and pushes waiting for one.
    public var inFlight: Int { queue.withLockedValue { $0.inFlight } }
    public var waiting: Int { queue.count }

    func acquire(_ lane: Lane, before deadline: ContinuousClock.Instant) async -> Bool {
        do {
            try await queue.wait(for: (), lane: lane.rawValue, until: deadline) { state, waiters in
                guard canStart(lane, state, waiters) else { return nil }
                start(lane, &state)
                return ()
            }
            return true
        } catch {
            return false
        }
    }

    func release(_ lane: Lane) {
        let now = queue.clock.now
        let (started, overdue) = queue.withLock { state, waiters in
            state.inFlight -= 1
            if lane == .bulk { state.bulkInFlight -= 1 }
            var started: [Waiter<Void, Void>] = []
            var overdue: [Waiter<Void, Void>] = []
            while state.inFlight < limit {
                let next: Waiter<Void, Void>
                if let interactive = waiters.popFirst(lane: Lane.interactive.rawValue) {
                    next = interactive
                } else if state.bulkInFlight < bulkLimit, let bulk = waiters.popFirst(lane: Lane.bulk.rawValue) {
                    next = bulk
                } else {
                    break
                }
                // A waiter whose deadline passed before the watcher got to it got no slot in time:
                // it is refused, as the watcher would refuse it, and the slot goes on to the next.
                guard let deadline = next.deadline, deadline > now else {
                    overdue.append(next)
                    continue
                }
                start(next.lane == Lane.bulk.rawValue ? .bulk : .interactive, &state)
                started.append(next)
            }
            return (started, overdue)
        }
        for waiter in overdue { waiter.resume(throwing: WaitError.timedOut) }
        for waiter in started { waiter.resume() }
    }

    /// FIFO within a lane, and bulk only while no interactive push waits.
    private func canStart(_ lane: Lane, _ state: State, _ waiters: Waiters<Void, Void>) -> Bool {
        guard state.inFlight < limit, waiters.count(lane: Lane.interactive.rawValue) == 0 else { return false }
        return lane == .interactive
            || (waiters.count(lane: Lane.bulk.rawValue) == 0 && state.bulkInFlight < bulkLimit)
    }

    private func start(_ lane: Lane, _ state: inout State) {
        state.inFlight += 1
        if lane == .bulk { state.bulkInFlight += 1 }
    }
}
