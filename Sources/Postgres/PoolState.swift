import Waiting

/// The pool's books, kept under its waiter queue's lock beside the callers waiting for a slot:
/// free slots and the connect backoff. The queue (`Waiting`) does the waiting: FIFO, cancellation,
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
        } else if let next = waiters.popFirst() {
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
