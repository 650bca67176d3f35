import NIOConcurrencyHelpers

/// The one waiter queue: callers wait in line (FIFO per lane) for something the owner hands out
/// (a connection, a slot, an outcome), each until its deadline, and a bounded number at most.
///
/// The queue keeps the owner's `State` under the same lock as the line, so "take one if free,
/// otherwise queue" (`wait`'s `admit`) and "give it to the next in line, otherwise put it back"
/// (`withLock`) are atomic, and no hand-over falls between the two.
///
/// - Cancellation: a caller cancelled while queued leaves the line at once (O(1)) with
///   `CancellationError`; one cancelled before it is queued is refused when it would queue.
/// - Deadlines: one task per queue watches them all, sleeping until the earliest (not a timer per
///   waiter, which cost more than the wait itself), and fails expired callers with `timeoutError`.
///   It runs only while someone waits with a deadline.
/// - Bound: a caller that finds `maximumWaiting` already waiting is refused with `fullError`.
///
/// Every taken waiter is resumed exactly once: it leaves the line under the lock, and only
/// whoever took it resumes it.
///
/// The paths every wait and hand-over takes are `@inlinable`, so they are specialised for the
/// owner's types in its module: run as unspecialised generic code from here, they looked up type
/// metadata and went through witness tables on every push (`swift_getGenericMetadata` and
/// `enqueue` together ~5% of a push job's CPU).
public final class WaiterQueue<State: Sendable, Item: Sendable, Value: Sendable>: Sendable {
    @usableFromInline
    struct Guarded: Sendable {
        @usableFromInline var state: State
        @usableFromInline var waiters: Waiters<Item, Value>

        @inlinable
        init(state: State, waiters: Waiters<Item, Value>) {
            self.state = state
            self.waiters = waiters
        }
    }

    @usableFromInline
    enum FirstLook {
        case admitted(Value)
        case announced(UInt64)
    }

    public let clock: any WaitClock
    public let maximumWaiting: Int
    @usableFromInline let timeoutError: any Error
    @usableFromInline let fullError: any Error
    private let didExpire: @Sendable (_ state: State, _ waiting: Int) -> Void
    @usableFromInline let guarded: NIOLockedValueBox<Guarded>

    /// `didExpire` runs after the watcher failed some waiters, with the state and the number still
    /// waiting then (to update a gauge, say).
    public init(
        _ state: State, lanes: Int = 1, maximumWaiting: Int, timeoutError: any Error = WaitError.timedOut,
        fullError: any Error = WaitError.full, clock: any WaitClock = SystemWaitClock(),
        didExpire: @escaping @Sendable (_ state: State, _ waiting: Int) -> Void = { _, _ in }
    ) {
        self.clock = clock
        self.maximumWaiting = maximumWaiting
        self.timeoutError = timeoutError
        self.fullError = fullError
        self.didExpire = didExpire
        guarded = NIOLockedValueBox(Guarded(state: state, waiters: Waiters(lanes: lanes)))
    }

    /// The owner's state alone, under the lock (as `NIOLockedValueBox.withLockedValue`).
    @inlinable
    public func withLockedValue<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try guarded.withLockedValue { try body(&$0.state) }
    }

    /// The owner's state and the line together, under the lock. Waiters taken out of the line here
    /// are the caller's to resume, after this returns.
    @inlinable
    public func withLock<R>(_ body: (inout State, inout Waiters<Item, Value>) throws -> R) rethrows -> R {
        try guarded.withLockedValue { try body(&$0.state, &$0.waiters) }
    }

    /// Waits in `lane` until someone takes this caller out of the line and resumes it, unless
    /// `admit` answers at once. `admit` runs under the lock, at most twice (before and while
    /// queueing, since things may change between): a value ends the wait, a throw fails it, nil
    /// queues the caller. `whenQueued` runs once the caller is in line, outside the lock.
    ///
    /// Throws `timeoutError` at `deadline` (a deadline already past refuses at once, after
    /// `admit`), `fullError` when the line is full, `CancellationError` when the task is
    /// cancelled before it was taken (only if `cancellable`).
    ///
    /// Runs in the caller's isolation until it suspends, so an actor's state read by `admit` and
    /// the queueing are one step on that actor.
    @inlinable
    public func wait(
        for item: Item, lane: Int = 0, until deadline: ContinuousClock.Instant?, cancellable: Bool = true,
        isolation: isolated (any Actor)? = #isolation,
        admit: (inout State, inout Waiters<Item, Value>) throws -> Value?,
        whenQueued: () -> Void = {}
    ) async throws -> Value {
        guard cancellable else {
            return try await enqueue(
                item, lane: lane, deadline: deadline, id: nil, isolation: isolation, admit: admit,
                whenQueued: whenQueued)
        }
        let firstLook = try guarded.withLockedValue { guarded -> FirstLook in
            if let value = try admit(&guarded.state, &guarded.waiters) { return .admitted(value) }
            return .announced(guarded.waiters.announce())
        }
        switch firstLook {
        case .admitted(let value):
            return value
        case .announced(let id):
            return try await withTaskCancellationHandler(
                operation: {
                    try await enqueue(
                        item, lane: lane, deadline: deadline, id: id, isolation: isolation, admit: admit,
                        whenQueued: whenQueued)
                },
                onCancel: {
                    guarded.withLockedValue { $0.waiters.cancel(id) }?.resume(throwing: CancellationError())
                }, isolation: isolation)
        }
    }

    /// Waiting callers, for tests and gauges.
    @inlinable
    public var count: Int { guarded.withLockedValue { $0.waiters.count } }

    /// Whether the deadline watcher runs, and ids kept for waiters that left: for tests.
    var isWatching: Bool { guarded.withLockedValue { $0.waiters.watch != nil } }
    var staleIDs: Int { guarded.withLockedValue { $0.waiters.staleIDs } }

    /// `wait` for a caller that is not a task, so that it needs none (an HTTP request answered
    /// from its event loop, say): `completion` gets the outcome exactly once, before this returns
    /// when `admit` answers or the caller is refused, otherwise on the thread of whoever takes it
    /// out of the line (or of the deadline watcher). Not cancellable.
    @inlinable
    public func enqueue(
        _ item: Item, lane: Int = 0, until deadline: ContinuousClock.Instant?,
        admit: (inout State, inout Waiters<Item, Value>) throws -> Value?, whenQueued: () -> Void = {},
        completion: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) {
        let settled = line(
            item, lane: lane, deadline: deadline, id: nil, admit: admit, resumption: .completion(completion))
        if let settled { completion(settled) } else { whenQueued() }
    }

    @inlinable
    func enqueue(
        _ item: Item, lane: Int, deadline: ContinuousClock.Instant?, id announced: UInt64?,
        isolation: isolated (any Actor)?,
        admit: (inout State, inout Waiters<Item, Value>) throws -> Value?, whenQueued: () -> Void
    ) async throws -> Value {
        try await withUnsafeThrowingContinuation(isolation: isolation) {
            (continuation: UnsafeContinuation<Value, any Error>) in
            let settled = line(
                item, lane: lane, deadline: deadline, id: announced, admit: admit,
                resumption: .continuation(continuation))
            if let settled { continuation.resume(with: settled) } else { whenQueued() }
        }
    }

    /// Puts the caller in line, under the lock; its outcome instead when it is admitted at once
    /// or refused.
    @inlinable
    func line(
        _ item: Item, lane: Int, deadline: ContinuousClock.Instant?, id announced: UInt64?,
        admit: (inout State, inout Waiters<Item, Value>) throws -> Value?,
        resumption: Waiter<Item, Value>.Resumption
    ) -> Result<Value, any Error>? {
        guarded.withLockedValue { guarded -> Result<Value, any Error>? in
            if let announced, guarded.waiters.withdrawAnnouncement(announced) {
                return .failure(CancellationError())
            }
            do {
                if let value = try admit(&guarded.state, &guarded.waiters) { return .success(value) }
            } catch {
                return .failure(error)
            }
            if guarded.waiters.count >= maximumWaiting { return .failure(fullError) }
            if let deadline, deadline <= clock.now { return .failure(timeoutError) }
            let waiter = Waiter(item: item, lane: lane, deadline: deadline, resumption: resumption)
            guarded.waiters.append(waiter, id: announced ?? guarded.waiters.newID())
            if let deadline { watch(until: deadline, &guarded.waiters) }
            return nil
        }
    }

    /// Makes sure the watcher wakes by `deadline`: starts it, or replaces one sleeping longer.
    @usableFromInline
    func watch(until deadline: ContinuousClock.Instant, _ waiters: inout Waiters<Item, Value>) {
        if let watch = waiters.watch, watch.until <= deadline { return }
        waiters.stopWatching()
        waiters.watchGeneration += 1
        let generation = waiters.watchGeneration
        let task = Task { await self.expireWaiters(watch: generation) }
        waiters.watch = Waiters.Watch(generation: generation, until: deadline, task: task)
    }

    /// The watcher: sleeps until the earliest deadline, fails whoever is due, and ends when no
    /// deadline is left or a newer watcher took over.
    private func expireWaiters(watch generation: UInt64) async {
        while let deadline = guarded.withLockedValue({ $0.waiters.nextDeadline(forWatch: generation) }) {
            try? await clock.sleep(until: deadline)
            let (expired, state, waiting) = guarded.withLockedValue { guarded in
                guard guarded.waiters.watch?.generation == generation else {
                    return ([Waiter<Item, Value>](), guarded.state, 0)
                }
                return (guarded.waiters.removeExpired(at: clock.now), guarded.state, guarded.waiters.count)
            }
            for waiter in expired { waiter.resume(throwing: timeoutError) }
            if !expired.isEmpty { didExpire(state, waiting) }
        }
    }
}
