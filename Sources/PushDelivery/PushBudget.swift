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
public final class PushBudget: Sendable {
    public enum Lane: Sendable {
        case interactive
        case bulk
    }

    private struct Waiter {
        let id: UInt64
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var inFlight = 0
        var bulkInFlight = 0
        var interactive: [Waiter] = []
        var bulk: [Waiter] = []
        var nextID: UInt64 = 0
    }

    /// Slots in all, and how many of them bulk pushes may hold.
    public let limit: Int
    public let bulkLimit: Int
    private let state = NIOLockedValueBox(State())

    /// `bulkShare` is the fraction of `limit` bulk pushes may hold (at least one slot).
    public init(limit: Int, bulkShare: Double) {
        precondition(limit >= 1 && (0...1).contains(bulkShare))
        self.limit = limit
        bulkLimit = max(1, Int((Double(limit) * bulkShare).rounded(.down)))
    }

    /// Runs `body` holding a slot of `lane`; nil, without running it, when no slot came before
    /// `deadline` or the task was cancelled while waiting. A free slot is taken at once, even
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
    public var waiting: Int { state.withLockedValue { $0.interactive.count + $0.bulk.count } }

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
                    guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
                    let waiter = Waiter(id: id, deadline: deadline, continuation: continuation)
                    if lane == .interactive { state.interactive.append(waiter) } else { state.bulk.append(waiter) }
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
                let nextLane: Lane
                if !state.interactive.isEmpty {
                    (next, nextLane) = (state.interactive.removeFirst(), .interactive)
                } else if !state.bulk.isEmpty, state.bulkInFlight < bulkLimit {
                    (next, nextLane) = (state.bulk.removeFirst(), .bulk)
                } else {
                    break
                }
                // A waiter whose deadline passed before its timer fired got no slot in time: it is
                // refused, as the timer would refuse it, and the slot goes on to the next waiter.
                guard next.deadline > now else {
                    overdue.append(next)
                    continue
                }
                start(nextLane, &state)
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
        let waiter: Waiter? = state.withLockedValue { state in
            if let index = state.interactive.firstIndex(where: { $0.id == id }) {
                return state.interactive.remove(at: index)
            }
            if let index = state.bulk.firstIndex(where: { $0.id == id }) { return state.bulk.remove(at: index) }
            return nil
        }
        waiter?.continuation.resume(returning: false)
    }

    /// FIFO within a lane, and bulk only while no interactive push waits.
    private func canStart(_ lane: Lane, _ state: State) -> Bool {
        guard state.inFlight < limit, state.interactive.isEmpty else { return false }
        return lane == .interactive || (state.bulk.isEmpty && state.bulkInFlight < bulkLimit)
    }

    private func start(_ lane: Lane, _ state: inout State) {
        state.inFlight += 1
        if lane == .bulk { state.bulkInFlight += 1 }
    }
}
