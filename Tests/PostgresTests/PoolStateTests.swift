import TestSupport
import Testing
import Waiting

@testable import Postgres

/// The pool's books in its waiter queue (`PoolState`): slots go to the oldest caller still
/// waiting, urgent callers before the others, the bound and the wait come from the configuration, and shutdown refuses everyone.
/// The queue itself is tested in `WaitingTests`.
@Suite("Pool waiters", .timeLimit(.minutes(1)))
struct PoolStateTests {
    let clock = ManualClock()

    func queue(size: Int, maxWaiting: Int = 8) -> PoolState.Queue {
        PoolState.Queue(
            PoolState(size: size), lanes: PoolPriority.allCases.count, maximumWaiting: maxWaiting,
            timeoutError: PostgresError.poolTimeout,
            fullError: PostgresError.queueFull, clock: clock)
    }

    func checkout(
        _ queue: PoolState.Queue, priority: PoolPriority = .normal, wait: Duration = .seconds(60)
    ) -> Task<PoolSlot, any Error> {
        let deadline = clock.now + wait
        return Task {
            try await queue.wait(for: (), lane: priority.rawValue, until: deadline) { state, _ in try state.admit() }
        }
    }

    func checkin(_ slot: PoolSlot, _ queue: PoolState.Queue) {
        queue.withLock { $0.checkin(slot, waiters: &$1) }?.resume(returning: slot)
    }

    @Test func aReturnedSlotGoesToTheOldestCallerStillWaiting() async throws {
        let queue = queue(size: 1)
        let slot = try await checkout(queue).value
        let tasks = (0..<3).map { _ in checkout(queue) }
        try await TestSupport.waitUntil("three waiting") { queue.count == 3 }
        for task in tasks.prefix(2) { task.cancel() }
        for task in tasks.prefix(2) { await #expect(throws: CancellationError.self) { try await task.value } }
        checkin(slot, queue)
        #expect(try await tasks[2].value === slot, "the slot went to the one still waiting")
        #expect(queue.withLock { $0.statistics(waiting: $1.count) }.inUse == 1)
    }

    @Test func anUrgentCallerGetsTheNextSlotBeforeThoseWaitingLonger() async throws {
        let queue = queue(size: 1)
        let slot = try await checkout(queue).value
        let normal = checkout(queue)
        try await TestSupport.waitUntil("one waiting") { queue.count == 1 }
        let urgent = checkout(queue, priority: .urgent)
        try await TestSupport.waitUntil("two waiting") { queue.count == 2 }
        checkin(slot, queue)
        #expect(try await urgent.value === slot, "the urgent caller went first")
        checkin(slot, queue)
        #expect(try await normal.value === slot, "then the one that waited longer")
    }

    @Test func pastMaxWaitingACallerIsRefusedAtOnce() async throws {
        let queue = queue(size: 1, maxWaiting: 1)
        let slot = try await checkout(queue).value
        let waiting = checkout(queue)
        try await TestSupport.waitUntil("one waiting") { queue.count == 1 }
        await #expect(throws: PostgresError.queueFull) { try await checkout(queue).value }
        checkin(slot, queue)
        #expect(try await waiting.value === slot)
    }

    @Test func aCallerWithNoSlotWithinTheWaitTimesOut() async throws {
        let queue = queue(size: 1)
        _ = try await checkout(queue).value
        let waiting = checkout(queue, wait: .milliseconds(500))
        try await TestSupport.waitUntil("one waiting, watched") { queue.count == 1 && clock.sleepers == 1 }
        clock.advance(by: .milliseconds(500))
        await #expect(throws: PostgresError.poolTimeout) { try await waiting.value }
        #expect(
            queue.withLock { $0.statistics(waiting: $1.count) }
                == PoolStatistics(size: 1, inUse: 1, idle: 0, waiting: 0))
    }

    @Test func shutdownFailsWaitersAndRefusesNewCallers() async throws {
        let queue = queue(size: 1)
        let slot = try await checkout(queue).value
        let waiting = checkout(queue)
        try await TestSupport.waitUntil("one waiting") { queue.count == 1 }
        let (waiters, free) = queue.withLock { $0.shutDown(waiters: &$1) }
        #expect(waiters.count == 1 && free.isEmpty)
        for waiter in waiters { waiter.resume(throwing: PostgresError.unavailable) }
        await #expect(throws: PostgresError.unavailable) { try await waiting.value }
        await #expect(throws: PostgresError.unavailable) { try await checkout(queue).value }
        checkin(slot, queue)
        #expect(queue.withLock { $0.statistics(waiting: $1.count) }.inUse == 0)
    }
}
