/// The pool's books, kept under its lock: free slots, waiting callers, the connect backoff.
struct PoolState {
    typealias Waiter = CheckedContinuation<PoolSlot, any Error>

    let size: Int
    /// Free slots; those holding an open connection sit at the end and are handed out first.
    private var free: [PoolSlot]
    /// In arrival order; every wait is equally long, so also in deadline order.
    private var waiters: [(id: UInt64, waiter: Waiter, deadline: ContinuousClock.Instant)] = []
    private var nextWaiterID: UInt64 = 0
    /// Whether a task is watching the waiters' deadlines (see `PostgresPool.expireWaiters`).
    private var isWatchingDeadlines = false
    private var inUse = 0
    private(set) var isShutDown = false
    var backoff = ConnectBackoff()

    init(size: Int) {
        self.size = size
        free = (0..<size).map { _ in PoolSlot() }
    }

    var statistics: PoolStatistics {
        PoolStatistics(
            size: size, inUse: inUse, idle: free.count { $0.connection != nil }, waiting: waiters.count)
    }

    mutating func takeFree() -> PoolSlot? {
        guard !isShutDown, let slot = free.popLast() else { return nil }
        inUse += 1
        return slot
    }

    mutating func makeWaiterID() -> UInt64 {
        nextWaiterID += 1
        return nextWaiterID
    }

    /// Returns true when the caller must start the task that watches deadlines.
    mutating func enqueue(_ waiter: Waiter, id: UInt64, deadline: ContinuousClock.Instant) -> Bool {
        waiters.append((id, waiter, deadline))
        defer { isWatchingDeadlines = true }
        return !isWatchingDeadlines
    }

    /// The oldest waiter's deadline; nil when nobody waits, which also ends the watch.
    mutating func nextDeadline() -> ContinuousClock.Instant? {
        guard let first = waiters.first else {
            isWatchingDeadlines = false
            return nil
        }
        return first.deadline
    }

    /// Removes and returns the waiters whose deadline has passed; the caller fails them.
    mutating func removeExpiredWaiters(at now: ContinuousClock.Instant) -> [Waiter] {
        let expired = waiters.prefix { $0.deadline <= now }.map(\.waiter)
        waiters.removeFirst(expired.count)
        return expired
    }

    /// Returns the waiter if it was still waiting; the caller resumes it.
    mutating func removeWaiter(id: UInt64) -> Waiter? {
        guard let position = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: position).waiter
    }

    /// Returns the waiter the slot goes to next, if any; the caller resumes it with the slot.
    mutating func checkin(_ slot: PoolSlot) -> Waiter? {
        if isShutDown {
            slot.connection = nil
        } else if !waiters.isEmpty {
            return waiters.removeFirst().waiter
        } else if slot.connection == nil {
            free.insert(slot, at: 0)
        } else {
            free.append(slot)
        }
        inUse -= 1
        return nil
    }

    /// Stops handing out slots. Returns the waiters to fail and the free slots to close.
    mutating func shutDown() -> (waiters: [Waiter], free: [PoolSlot]) {
        isShutDown = true
        defer { (waiters, free) = ([], []) }
        return (waiters.map(\.waiter), free)
    }
}
