import DequeModule
import HeapModule

/// The line of a `WaiterQueue`, kept under its lock beside the owner's state: one FIFO per lane,
/// the deadlines in a heap for the queue's single watcher, and callers announced but not yet
/// queued.
///
/// A waiter that leaves early (cancelled, expired) is removed from `entries` only, in O(1); its
/// id stays in its lane and in the heap until reached, and either is compacted once it holds more
/// stale ids than live ones, so a stream of cancellations never grows memory.
public struct Waiters<Item: Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    struct Deadline: Comparable, Sendable {
        @usableFromInline let instant: ContinuousClock.Instant
        @usableFromInline let id: UInt64

        @inlinable
        init(instant: ContinuousClock.Instant, id: UInt64) {
            self.instant = instant
            self.id = id
        }

        @inlinable
        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.instant, lhs.id) < (rhs.instant, rhs.id)
        }
    }

    /// The task sleeping until the earliest deadline, and that deadline.
    struct Watch {
        let generation: UInt64
        var until: ContinuousClock.Instant
        let task: Task<Void, Never>
    }

    @usableFromInline var entries: [UInt64: Waiter<Item, Value>] = [:]
    @usableFromInline var lanes: [Deque<UInt64>]
    @usableFromInline var liveInLane: [Int]
    @usableFromInline var deadlines = Heap<Deadline>()
    @usableFromInline var liveDeadlines = 0
    /// Ids handed out but not yet queued; true once cancelled.
    @usableFromInline var announced: [UInt64: Bool] = [:]
    @usableFromInline var nextID: UInt64 = 0
    var watch: Watch?
    var watchGeneration: UInt64 = 0

    init(lanes: Int) {
        precondition(lanes >= 1)
        self.lanes = Array(repeating: [], count: lanes)
        liveInLane = Array(repeating: 0, count: lanes)
    }

    /// Callers waiting, in all lanes.
    @inlinable
    public var count: Int { entries.count }
    @inlinable
    public var isEmpty: Bool { entries.isEmpty }

    @inlinable
    public func count(lane: Int) -> Int { liveInLane[lane] }

    /// The longest-waiting caller of `lane`, out of the line; the taker resumes it.
    @inlinable
    public mutating func popFirst(lane: Int = 0) -> Waiter<Item, Value>? {
        while let id = lanes[lane].popFirst() {
            if let waiter = remove(id) { return waiter }
        }
        return nil
    }

    /// Up to `limit` of the longest-waiting callers of `lane`, in arrival order.
    public mutating func popFirst(_ limit: Int, lane: Int = 0) -> [Waiter<Item, Value>] {
        var taken: [Waiter<Item, Value>] = []
        while taken.count < limit, let waiter = popFirst(lane: lane) { taken.append(waiter) }
        return taken
    }

    /// Every waiting caller, out of the line (shutdown, or one outcome for all of them). The
    /// deadline watcher is stopped: nothing is left to expire.
    public mutating func removeAll() -> [Waiter<Item, Value>] {
        let all = Array(entries.values)
        entries.removeAll()
        for lane in lanes.indices {
            lanes[lane].removeAll()
            liveInLane[lane] = 0
        }
        deadlines = Heap()
        liveDeadlines = 0
        stopWatching()
        return all
    }

    // MARK: For WaiterQueue

    /// Ids stored for waiters that left, for tests: it stays bounded.
    var staleIDs: Int {
        lanes.reduce(0) { $0 + $1.count } - entries.count + deadlines.count - liveDeadlines
    }

    @inlinable
    mutating func announce() -> UInt64 {
        nextID += 1
        announced[nextID] = false
        return nextID
    }

    /// Whether the announced caller `id` was cancelled before it could queue; forgets it.
    @inlinable
    mutating func withdrawAnnouncement(_ id: UInt64) -> Bool {
        announced.removeValue(forKey: id) ?? false
    }

    @inlinable
    mutating func newID() -> UInt64 {
        nextID += 1
        return nextID
    }

    @inlinable
    mutating func append(_ waiter: Waiter<Item, Value>, id: UInt64) {
        entries[id] = waiter
        lanes[waiter.lane].append(id)
        liveInLane[waiter.lane] += 1
        if lanes[waiter.lane].count > 2 * liveInLane[waiter.lane] + 64 {
            lanes[waiter.lane].removeAll { entries[$0] == nil }
        }
        if let deadline = waiter.deadline {
            deadlines.insert(Deadline(instant: deadline, id: id))
            liveDeadlines += 1
            if deadlines.count > 2 * liveDeadlines + 64 {
                deadlines = Heap(deadlines.unordered.filter { entries[$0.id] != nil })
            }
        }
    }

    /// Marks an announced caller cancelled (`withdrawAnnouncement` then says so), or takes a queued
    /// one out of the line for the canceller to resume; nil when it is no longer waiting.
    @inlinable
    mutating func cancel(_ id: UInt64) -> Waiter<Item, Value>? {
        if announced[id] != nil {
            announced[id] = true
            return nil
        }
        return remove(id)
    }

    /// The earliest deadline of a waiting caller, for the watcher of `generation`; nil ends that
    /// watch (nothing to expire, or a newer watcher took over).
    mutating func nextDeadline(forWatch generation: UInt64) -> ContinuousClock.Instant? {
        guard watch?.generation == generation else { return nil }
        while let first = deadlines.min, entries[first.id] == nil { _ = deadlines.popMin() }
        guard let first = deadlines.min else {
            watch = nil
            return nil
        }
        watch?.until = first.instant
        return first.instant
    }

    /// Takes out the callers whose deadline is `now` or earlier; the caller fails them.
    mutating func removeExpired(at now: ContinuousClock.Instant) -> [Waiter<Item, Value>] {
        var expired: [Waiter<Item, Value>] = []
        while let first = deadlines.min, first.instant <= now {
            _ = deadlines.popMin()
            if let waiter = remove(first.id) { expired.append(waiter) }
        }
        return expired
    }

    mutating func stopWatching() {
        watch?.task.cancel()
        watch = nil
    }

    @inlinable
    mutating func remove(_ id: UInt64) -> Waiter<Item, Value>? {
        guard let waiter = entries.removeValue(forKey: id) else { return nil }
        liveInLane[waiter.lane] -= 1
        if waiter.deadline != nil { liveDeadlines -= 1 }
        return waiter
    }
}
