import DequeModule

/// The pool's books, kept under its lock: free slots, waiting callers, the connect backoff.
///
/// A waiter is announced (`announceWaiter`) before its continuation exists and enqueued once it
/// does; a cancellation can arrive at any point between. Cancelled while announced, it is marked,
/// and `enqueue` refuses it at once instead of letting it wait until its deadline (the race
/// swift-nio's `NIOThreadPool` closes with its set of cancelled ids). Cancelled while enqueued, its
/// continuation leaves `waiting` at once; its place in `queue` is skipped when reached.
struct PoolState {
    typealias Waiter = CheckedContinuation<PoolSlot, any Error>

    /// What `enqueue` decided.
    enum Admission {
        /// Waiting; `watchDeadlines` when the caller must start the task that expires waiters.
        case waiting(watchDeadlines: Bool)
        /// Settled at once; the caller resumes the waiter with this.
        case settled(Result<PoolSlot, any Error>)
    }

    let size: Int
    /// Most callers that may wait at once; past it, checkout fails with `.queueFull`.
    let maxWaiting: Int
    /// Free slots; those holding an open connection sit at the end and are handed out first.
    private var free: [PoolSlot]
    /// Ids in arrival order; every wait is equally long, so also in deadline order. May hold ids
    /// of cancelled waiters, which `waiting` no longer has.
    private var queue: Deque<(id: UInt64, deadline: ContinuousClock.Instant)> = []
    private var waiting: [UInt64: Waiter] = [:]
    /// Announced ids not yet enqueued; true once cancelled.
    private var announced: [UInt64: Bool] = [:]
    private var nextWaiterID: UInt64 = 0
    /// Whether a task is watching the waiters' deadlines (see `PostgresPool.expireWaiters`).
    private var isWatchingDeadlines = false
    private var inUse = 0
    private(set) var isShutDown = false
    var backoff = ConnectBackoff()

    init(size: Int, maxWaiting: Int) {
        self.size = size
        self.maxWaiting = maxWaiting
        free = (0..<size).map { _ in PoolSlot() }
    }

    var statistics: PoolStatistics {
        PoolStatistics(
            size: size, inUse: inUse, idle: free.count { $0.connection != nil }, waiting: waiting.count)
    }

    mutating func takeFree() -> PoolSlot? {
        guard !isShutDown, let slot = free.popLast() else { return nil }
        inUse += 1
        return slot
    }

    /// A new waiter's id, announced so that a cancellation before `enqueue` is remembered.
    mutating func announceWaiter() -> UInt64 {
        nextWaiterID += 1
        announced[nextWaiterID] = false
        return nextWaiterID
    }

    /// Takes a free slot if one appeared meanwhile, refuses a waiter that was cancelled, shut out
    /// or is one too many, and queues the rest until `deadline`.
    mutating func enqueue(_ waiter: Waiter, id: UInt64, deadline: ContinuousClock.Instant) -> Admission {
        let cancelled = announced.removeValue(forKey: id) ?? false
        if cancelled { return .settled(.failure(CancellationError())) }
        if isShutDown { return .settled(.failure(PostgresError.unavailable)) }
        if let slot = takeFree() { return .settled(.success(slot)) }
        if waiting.count >= maxWaiting { return .settled(.failure(PostgresError.queueFull)) }
        queue.append((id, deadline))
        waiting[id] = waiter
        defer { isWatchingDeadlines = true }
        return .waiting(watchDeadlines: !isWatchingDeadlines)
    }

    /// Returns the waiter if it was waiting; the caller resumes it with `CancellationError`. A
    /// waiter not yet enqueued is marked, and `enqueue` refuses it.
    mutating func cancelWaiter(id: UInt64) -> Waiter? {
        if announced[id] != nil {
            announced[id] = true
            return nil
        }
        return waiting.removeValue(forKey: id)
    }

    /// The oldest waiter's deadline; nil when nobody waits, which also ends the watch.
    mutating func nextDeadline() -> ContinuousClock.Instant? {
        dropCancelledHead()
        guard let first = queue.first else {
            isWatchingDeadlines = false
            return nil
        }
        return first.deadline
    }

    /// Removes and returns the waiters whose deadline has passed; the caller fails them.
    mutating func removeExpiredWaiters(at now: ContinuousClock.Instant) -> [Waiter] {
        var expired: [Waiter] = []
        while let first = queue.first, first.deadline <= now {
            queue.removeFirst()
            if let waiter = waiting.removeValue(forKey: first.id) { expired.append(waiter) }
        }
        return expired
    }

    /// Returns the waiter the slot goes to next, if any; the caller resumes it with the slot.
    mutating func checkin(_ slot: PoolSlot) -> Waiter? {
        if isShutDown {
            slot.connection = nil
        } else if let next = popWaiter() {
            return next
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
        defer { (queue, waiting, free) = ([], [:], []) }
        return (Array(waiting.values), free)
    }

    private mutating func popWaiter() -> Waiter? {
        while let first = queue.popFirst() {
            if let waiter = waiting.removeValue(forKey: first.id) { return waiter }
        }
        return nil
    }

    private mutating func dropCancelledHead() {
        while let first = queue.first, waiting[first.id] == nil { queue.removeFirst() }
    }
}
