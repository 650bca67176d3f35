import DequeModule
import NIOConcurrencyHelpers

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
    public enum Lane: Sendable {
        case interactive
        case bulk
    }

    private struct Waiter {
        let lane: Lane
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Bool, Never>
    }

    /// Waiters live in `waiters`, their ids queue per lane. One that leaves early (deadline,
    /// cancellation) is removed from `waiters` only, in O(1); its id is skipped when the queue
    /// reaches it, and a queue holding more stale ids than live ones is compacted.
    private struct State {
        var inFlight = 0
        var bulkInFlight = 0
        var waiters: [UInt64: Waiter] = [:]
        var interactive = Deque<UInt64>()
        var bulk = Deque<UInt64>()
        var interactiveWaiting = 0
        var bulkWaiting = 0
        var nextID: UInt64 = 0

        mutating func enqueue(_ id: UInt64, _ waiter: Waiter) {
            waiters[id] = waiter
            switch waiter.lane {
            case .interactive:
                interactiveWaiting += 1
                interactive.append(id)
                if interactive.count > 2 * interactiveWaiting + 64 { interactive.removeAll { waiters[$0] == nil } }
            case .bulk:
                bulkWaiting += 1
                bulk.append(id)
                if bulk.count > 2 * bulkWaiting + 64 { bulk.removeAll { waiters[$0] == nil } }
            }
        }

        mutating func remove(_ id: UInt64) -> Waiter? {
            guard let waiter = waiters.removeValue(forKey: id) else { return nil }
            switch waiter.lane {
            case .interactive: interactiveWaiting -= 1
            case .bulk: bulkWaiting -= 1
            }
            return waiter
        }

        /// The longest-waiting live waiter of `lane`.
        mutating func next(_ lane: Lane) -> Waiter? {
            while let id = lane == .interactive ? interactive.popFirst() : bulk.popFirst() {
                if let waiter = remove(id) { return waiter }
            }
            return nil
        }
    }

    /// Slots in all, how many of them bulk pushes may hold, and how many pushes may wait.
    public let limit: Int
    public let bulkLimit: Int
    public let maximumWaiting: Int
    private let state = NIOLockedValueBox(State())

    /// `bulkShare` is the fraction of `limit` bulk pushes may hold (at least one slot);
    /// `maximumWaiting` defaults to 64 times `limit`.
    public init(limit: Int, bulkShare: Double, maximumWaiting: Int? = nil) {
        precondition(limit >= 1 && (0...1).contains(bulkShare))
        self.limit = limit
        bulkLimit = max(1, Int((Double(limit) * bulkShare).rounded(.down)))
        self.maximumWaiting = maximumWaiting ?? limit * 64
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
    public var inFlight: Int { state.withLockedValue { $0.inFlight } }
    public var waiting: Int { state.withLockedValue { $0.waiters.count } }

    func acquire(_ lane: Lane, before deadline: ContinuousClock.Instant) async -> Bool {
        let id: UInt64? = state.withLockedValue { state in
            if canStart(lane, state) {
                start(lane, &state)
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        guard ContinuousClock.now < deadline else { return false }
        let timer = Task {
            try await Task.sleep(until: deadline)
            self.stopWaiting(id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answer: Bool? = state.withLockedValue { state in
                    // A slot may have come free since the first look.
                    if canStart(lane, state) {
                        start(lane, &state)
                        return true
                    }
                    // Checked under the lock, so a timer or cancellation that already looked for
                    // this waiter is never missed: it would stay queued.
                    guard ContinuousClock.now < deadline, !Task.isCancelled, state.waiters.count < maximumWaiting
                    else { return false }
                    state.enqueue(id, Waiter(lane: lane, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            stopWaiting(id)
        }
    }

    func release(_ lane: Lane) {
        let now = ContinuousClock.now
        let (started, overdue) = state.withLockedValue { state in
            state.inFlight -= 1
            if lane == .bulk { state.bulkInFlight -= 1 }
            var started: [Waiter] = []
            var overdue: [Waiter] = []
            while state.inFlight < limit {
                let next: Waiter
                if let interactive = state.next(.interactive) {
                    next = interactive
                } else if state.bulkInFlight < bulkLimit, let bulk = state.next(.bulk) {
                    next = bulk
                } else {
                    break
                }
                // A waiter whose deadline passed before its timer fired got no slot in time: it is
                // refused, as the timer would refuse it, and the slot goes on to the next waiter.
                guard next.deadline > now else {
                    overdue.append(next)
                    continue
                }
                start(next.lane, &state)
                started.append(next)
            }
            return (started, overdue)
        }
        for waiter in overdue { waiter.continuation.resume(returning: false) }
        for waiter in started { waiter.continuation.resume(returning: true) }
    }

    /// A waiter whose deadline passed or whose task was cancelled leaves the queue; one already
    /// given a slot (or not yet queued) is not found and keeps it.
    private func stopWaiting(_ id: UInt64) {
        state.withLockedValue { $0.remove(id) }?.continuation.resume(returning: false)
    }

    /// FIFO within a lane, and bulk only while no interactive push waits.
    private func canStart(_ lane: Lane, _ state: State) -> Bool {
        guard state.inFlight < limit, state.interactiveWaiting == 0 else { return false }
        return lane == .interactive || (state.bulkWaiting == 0 && state.bulkInFlight < bulkLimit)
    }

    private func start(_ lane: Lane, _ state: inout State) {
        state.inFlight += 1
        if lane == .bulk { state.bulkInFlight += 1 }
    }
}
