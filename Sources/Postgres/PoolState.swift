import Waiting

/// Which line a caller waits in for a connection. A freed connection goes to the oldest `urgent`
/// caller before any `normal` one: during a push job, whose statements keep every connection busy,
/// a ring's claim waited in one line with them for up to the pool's wait limit (p99 250–500 ms,
/// and some answered 503 at the limit).
public enum PoolPriority: Int, Sendable, CaseIterable {
    /// A ring's claim: first to the ring line's connections (`PostgresConfiguration.ringConnections`),
    /// which no other caller takes, then to any free one; ahead of `urgent` for a freed connection.
    case ring
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
    /// Free slots of the ring line, taken by `ring` callers only: a ring's claim then finds a
    /// connection whose backend no push job or group commit keeps busy.
    private var ringFree: [PoolSlot]
    private var inUse = 0
    private(set) var isShutDown = false
    var backoff = ConnectBackoff()

    /// `size` slots for every caller and `ringLine` more for `ring` callers only.
    init(size: Int, ringLine: Int = 0) {
        self.size = size + ringLine
        free = (0..<size).map { _ in PoolSlot(isRingLine: false) }
        ringFree = (0..<ringLine).map { _ in PoolSlot(isRingLine: true) }
    }

    func statistics(waiting: Int) -> PoolStatistics {
        PoolStatistics(
            size: size, inUse: inUse,
            idle: free.count { $0.connection != nil } + ringFree.count { $0.connection != nil }, waiting: waiting)
    }

    /// A free slot, nil when the caller must wait; throws `.unavailable` after shutdown.
    mutating func admit(_ priority: PoolPriority) throws -> PoolSlot? {
        guard !isShutDown else { throw PostgresError.unavailable }
        let ringSlot = priority == .ring ? ringFree.popLast() : nil
        guard let slot = ringSlot ?? free.popLast() else { return nil }
        inUse += 1
        return slot
    }

    /// Returns the waiter the slot goes to next, if any; the caller resumes it with the slot.
    mutating func checkin(_ slot: PoolSlot, waiters: inout Waiters<Void, PoolSlot>) -> Waiter<Void, PoolSlot>? {
        if isShutDown {
            slot.connection = nil
        } else if let next = Self.next(for: slot, in: &waiters) {
            return next
        } else if slot.isRingLine {
            ringFree.insert(slot, at: slot.connection == nil ? 0 : ringFree.endIndex)
        } else {
            free.insert(slot, at: slot.connection == nil ? 0 : free.endIndex)
        }
        inUse -= 1
        return nil
    }

    /// A waiting ring first, then (for a slot not of the ring line) an urgent caller, then the rest.
    private static func next(for slot: PoolSlot, in waiters: inout Waiters<Void, PoolSlot>) -> Waiter<Void, PoolSlot>? {
        if let ring = waiters.popFirst(lane: PoolPriority.ring.rawValue) { return ring }
        guard !slot.isRingLine else { return nil }
        return waiters.popFirst(lane: PoolPriority.urgent.rawValue)
            ?? waiters.popFirst(lane: PoolPriority.normal.rawValue)
    }

    /// Stops handing out slots. Returns the waiters to fail and the free slots to close.
    mutating func shutDown(waiters: inout Waiters<Void, PoolSlot>) -> (
        waiters: [Waiter<Void, PoolSlot>], free: [PoolSlot]
    ) {
        isShutDown = true
        defer { (free, ringFree) = ([], []) }
        return (waiters.removeAll(), free + ringFree)
    }
}
