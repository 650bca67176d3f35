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
    /// Rings whose claim is on its way (`PostgresPool.givingWay`): while any is, `normal` callers
    /// wait, so that no push job statement starts beside a ring's claim; but not past
    /// `givingWayUntil`, so that rings following each other do not stop a job.
    private var ringsInFlight = 0
    private var givingWayUntil = ContinuousClock.Instant.now
    /// The longest `normal` callers are held back from the first of overlapping rings: a claim's
    /// statements answer in 2–3 ms at the median during a job.
    static let longestGiveWay = Duration.milliseconds(10)
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
    mutating func admit(_ priority: PoolPriority, at now: ContinuousClock.Instant) throws -> PoolSlot? {
        guard !isShutDown else { throw PostgresError.unavailable }
        if priority == .normal, givesWay(at: now) { return nil }
        let ringSlot = priority == .ring ? ringFree.popLast() : nil
        guard let slot = ringSlot ?? free.popLast() else { return nil }
        inUse += 1
        return slot
    }

    /// Returns the waiter the slot goes to next, if any; the caller resumes it with the slot.
    mutating func checkin(_ slot: PoolSlot, at now: ContinuousClock.Instant, waiters: inout Waiters<Void, PoolSlot>)
        -> Waiter<Void, PoolSlot>?
    {
        if isShutDown {
            slot.connection = nil
        } else if let next = next(for: slot, at: now, in: &waiters) {
            return next
        } else if slot.isRingLine {
            ringFree.insert(slot, at: slot.connection == nil ? 0 : ringFree.endIndex)
        } else {
            free.insert(slot, at: slot.connection == nil ? 0 : free.endIndex)
        }
        inUse -= 1
        return nil
    }

    /// A waiting ring first, then (for a slot not of the ring line) an urgent caller, then the rest
    /// unless a ring is in flight.
    private func next(for slot: PoolSlot, at now: ContinuousClock.Instant, in waiters: inout Waiters<Void, PoolSlot>)
        -> Waiter<Void, PoolSlot>?
    {
        if let ring = waiters.popFirst(lane: PoolPriority.ring.rawValue) { return ring }
        guard !slot.isRingLine else { return nil }
        if let urgent = waiters.popFirst(lane: PoolPriority.urgent.rawValue) { return urgent }
        return givesWay(at: now) ? nil : waiters.popFirst(lane: PoolPriority.normal.rawValue)
    }

    private func givesWay(at now: ContinuousClock.Instant) -> Bool { ringsInFlight > 0 && now < givingWayUntil }

    /// Returns when `normal` callers will go again if rings keep overlapping; nil when a ring
    /// already holds them back.
    mutating func ringStarted(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        ringsInFlight += 1
        guard ringsInFlight == 1 else { return nil }
        givingWayUntil = now + Self.longestGiveWay
        return givingWayUntil
    }

    mutating func ringEnded() { ringsInFlight -= 1 }

    /// The `normal` callers that may go now, each with its slot: the caller resumes them.
    mutating func heldBack(at now: ContinuousClock.Instant, waiters: inout Waiters<Void, PoolSlot>)
        -> [(Waiter<Void, PoolSlot>, PoolSlot)]
    {
        guard !givesWay(at: now), !isShutDown else { return [] }
        var admitted: [(Waiter<Void, PoolSlot>, PoolSlot)] = []
        while !free.isEmpty, let next = waiters.popFirst(lane: PoolPriority.normal.rawValue) {
            inUse += 1
            admitted.append((next, free.removeLast()))
        }
        return admitted
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
