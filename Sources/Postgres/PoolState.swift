import Waiting

/// Which line a caller waits in for a connection. A freed connection goes to the oldest `urgent`
/// caller before any `normal` one: during a push job, whose statements keep every connection busy,
/// a ring's claim waited in one line with them for up to the pool's wait limit (p99 250–500 ms,
/// and some answered 503 at the limit).
public enum PoolPriority: Int, Sendable, CaseIterable {
    case urgent
    case normal
}

/// The pool's books, kept under its waiter queue's lock beside the callers waiting for a slot:
/// free slots and the connect backoff. The queue (`Waiting`) does the waiting: FIFO per priority, cancellation,
/// one watcher for every caller's `poolWaitTimeout`, and the `maxWaiting` bound.
struct PoolState: Sendable {
    typealias Queue = WaiterQueue<PoolState, Void, PoolSlot>

    let size: Int
    /// Free slots; those holding an open connection sit at the end and are handed out first.
    private var free: [PoolSlot]
    private var inUse = 0
    private(set) var isShutDown = false
    var backoff = ConnectBackoff()

    init(size: Int) {
        self.size = size
        free = (0..<size).map { _ in PoolSlot() }
    }

    func statistics(waiting: Int) -> PoolStatistics {
        PoolStatistics(size: size, inUse: inUse, idle: free.count { $0.connection != nil }, waiting: waiting)
    }

    /// A free slot, nil when the caller must wait; throws `.unavailable` after shutdown.
    mutating func admit() throws -> PoolSlot? {
        guard !isShutDown else { throw PostgresError.unavailable }
        guard let slot = free.popLast() else { return nil }
        inUse += 1
        return slot
    }

    /// Returns the waiter the slot goes to next, if any; the caller resumes it with the slot.
    mutating func checkin(_ slot: PoolSlot, waiters: inout Waiters<Void, PoolSlot>) -> Waiter<Void, PoolSlot>? {
        if isShutDown {
            slot.connection = nil
        } else if let next = waiters.popFirst(lane: PoolPriority.urgent.rawValue)
            ?? waiters.popFirst(lane: PoolPriority.normal.rawValue)
        {
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
    mutating func shutDown(waiters: inout Waiters<Void, PoolSlot>) -> (
        waiters: [Waiter<Void, PoolSlot>], free: [PoolSlot]
    ) {
        isShutDown = true
        defer { free = [] }
        return (waiters.removeAll(), free)
    }
}
