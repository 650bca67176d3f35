import NIOConcurrencyHelpers
import Testing

@testable import Waiting

/// The waiter queue, driven by a manual clock: nothing here sleeps or measures time.
@Suite(.timeLimit(.minutes(1)))
struct WaiterQueueTests {
    /// A queue of tasks waiting for a number: the state is how many numbers are free to take.
    typealias Queue = WaiterQueue<Int, Int, Int>

    let clock = ManualClock()

    func queue(free: Int = 0, lanes: Int = 1, maximumWaiting: Int = 100) -> Queue {
        Queue(free, lanes: lanes, maximumWaiting: maximumWaiting, clock: clock)
    }

    /// Waits in `queue` for `item`, taking a free number (-1) when there is one.
    func wait(
        _ queue: Queue, _ item: Int, lane: Int = 0, after duration: Duration? = nil
    ) -> Task<Int, any Error> {
        let deadline = duration.map { clock.now + $0 }
        return Task {
            try await queue.wait(for: item, lane: lane, until: deadline) { free, _ in
                guard free > 0 else { return nil }
                free -= 1
                return -1
            }
        }
    }

    /// Hands every waiter its own item back, oldest first, and returns the items in that order.
    func handOutAll(_ queue: Queue, lane: Int = 0) -> [Int] {
        let taken = queue.withLock { $1.popFirst(.max, lane: lane) }
        for waiter in taken { waiter.resume(returning: waiter.item) }
        return taken.map(\.item)
    }

    @Test func aFreeThingIsTakenAtOnceWithoutQueueing() async throws {
        let queue = queue(free: 1)
        #expect(try await wait(queue, 7).value == -1)
        #expect(queue.count == 0 && !queue.isWatching)
    }

    @Test func waitersAreServedInTheOrderTheyCame() async throws {
        let queue = queue()
        var tasks: [Task<Int, any Error>] = []
        for item in 0..<5 {
            tasks.append(wait(queue, item))
            try await until("waiter \(item) queued") { queue.count == item + 1 }
        }
        #expect(handOutAll(queue) == [0, 1, 2, 3, 4])
        for (item, task) in tasks.enumerated() { #expect(try await task.value == item) }
    }

    @Test func lanesAreSeparateLines() async throws {
        let queue = queue(lanes: 2)
        let first = wait(queue, 1, lane: 1)
        try await until("lane 1 queued") { queue.count == 1 }
        let second = wait(queue, 2, lane: 0)
        try await until("lane 0 queued") { queue.count == 2 }
        #expect(queue.withLock { $1.count(lane: 0) == 1 && $1.count(lane: 1) == 1 })
        #expect(handOutAll(queue, lane: 0) == [2])
        #expect(try await second.value == 2)
        #expect(handOutAll(queue, lane: 1) == [1])
        #expect(try await first.value == 1)
    }

    @Test func aWaiterCancelledWhileQueuedLeavesAtOnce() async throws {
        let queue = queue()
        let leaving = wait(queue, 1)
        try await until("queued") { queue.count == 1 }
        let staying = wait(queue, 2)
        try await until("both queued") { queue.count == 2 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(queue.count == 1)
        #expect(handOutAll(queue) == [2], "the cancelled waiter's place is skipped")
        #expect(try await staying.value == 2)
    }

    @Test func aTaskCancelledBeforeItQueuesIsRefusedWithoutQueueing() async throws {
        let queue = queue()
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await queue.wait(for: 1, until: nil) { _, _ in nil }
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(queue.count == 0)
    }

    /// The window `wait` cannot close with the task's own flag: the cancellation handler runs
    /// after the caller was announced but before its continuation exists.
    @Test func aCancellationBetweenAnnouncingAndQueueingIsRemembered() {
        var waiters = Waiters<Int, Int>(lanes: 1)
        let id = waiters.announce()
        #expect(waiters.cancel(id) == nil, "nothing to resume yet")
        let refused = waiters.withdrawAnnouncement(id)
        #expect(refused, "queueing is refused")
        let again = waiters.withdrawAnnouncement(id)
        #expect(!again, "and forgotten")
    }

    @Test func aFreeThingBeatsACancellationThatArrivesAfterIt() async throws {
        let queue = queue()
        let waiter = wait(queue, 1)
        try await until("queued") { queue.count == 1 }
        #expect(handOutAll(queue) == [1])
        waiter.cancel()
        #expect(try await waiter.value == 1, "taken before the cancellation: it keeps what it was given")
    }

    @Test func theLineIsBoundedAndRefusesAtOnceWhenFull() async throws {
        let queue = queue(maximumWaiting: 2)
        let queued = [wait(queue, 1), wait(queue, 2)]
        try await until("two queued") { queue.count == 2 }
        await #expect(throws: WaitError.full) { try await wait(queue, 3).value }
        #expect(handOutAll(queue).sorted() == [1, 2])
        for task in queued { _ = try await task.value }
    }

    @Test func aDeadlineAlreadyPastRefusesAtOnceButAFreeThingIsStillTaken() async throws {
        let queue = queue()
        await #expect(throws: WaitError.timedOut) { try await wait(queue, 1, after: .zero).value }
        #expect(queue.count == 0 && !queue.isWatching)
        queue.withLockedValue { $0 = 1 }
        #expect(try await wait(queue, 2, after: .zero).value == -1)
    }

    /// Waiters queued latest-deadline first: the one watcher moves to the earliest deadline, and
    /// each waiter fails at its own deadline, not before.
    @Test func oneWatcherExpiresEachWaiterAtItsDeadline() async throws {
        let queue = queue()
        let start = clock.now
        var tasks: [Task<Int, any Error>] = []
        for seconds in [3, 2, 1] {
            tasks.append(wait(queue, seconds, after: .seconds(seconds)))
            try await until("queued with \(seconds) s") { queue.count == tasks.count }
        }
        try await until("one watcher asleep until the earliest deadline") {
            clock.sleepers == 1 && clock.nextWakeUp == start + .seconds(1)
        }
        clock.advance(by: .seconds(1))
        await #expect(throws: WaitError.timedOut) { try await tasks[2].value }
        try await until("the watcher moved on") { clock.sleepers == 1 && clock.nextWakeUp == start + .seconds(2) }
        #expect(queue.count == 2)
        clock.advance(by: .milliseconds(1999))
        await #expect(throws: WaitError.timedOut) { try await tasks[1].value }
        try await until("asleep until the last deadline") { clock.nextWakeUp == start + .seconds(3) }
        #expect(queue.count == 1, "3 s is not due yet")
        #expect(handOutAll(queue) == [3])
        #expect(try await tasks[0].value == 3)
        // Still asleep: a watcher lives until its deadline, so a busy queue does not start one
        // per waiter. It ends there, finding nothing left to expire.
        #expect(queue.isWatching)
        clock.advance(by: .milliseconds(1))
        try await until("the watcher ended with nothing left to expire") { !queue.isWatching }
        #expect(clock.sleepers == 0)
    }

    @Test func theOwnersTimeoutErrorAndExpiryHookAreUsed() async throws {
        struct Late: Error {}
        let expiries = NIOLockedValueBox([Int]())
        let queue = Queue(
            0, maximumWaiting: 10, timeoutError: Late(), clock: clock,
            didExpire: { _, waiting in expiries.withLockedValue { $0.append(waiting) } })
        let late = wait(queue, 1, after: .seconds(1))
        let patient = wait(queue, 2)
        try await until("both queued") { queue.count == 2 }
        try await until("watching") { clock.sleepers == 1 }
        clock.advance(by: .seconds(1))
        await #expect(throws: Late.self) { try await late.value }
        try await until("hook ran") { !expiries.withLockedValue { $0.isEmpty } }
        #expect(expiries.withLockedValue { $0 } == [1], "one left waiting, without a deadline")
        #expect(handOutAll(queue) == [2])
        _ = try await patient.value
    }

    @Test func removingEveryWaiterStopsTheWatcher() async throws {
        let queue = queue()
        let tasks = [wait(queue, 1, after: .seconds(5)), wait(queue, 2, after: .seconds(6))]
        try await until("queued and watched") { queue.count == 2 && clock.sleepers == 1 }
        let all = queue.withLock { $1.removeAll() }
        for waiter in all { waiter.resume(throwing: CancellationError()) }
        for task in tasks { await #expect(throws: CancellationError.self) { try await task.value } }
        #expect(!queue.isWatching)
        try await until("the watcher's sleep was cancelled") { clock.sleepers == 0 }
    }

    /// Waiters that leave mid-line are removed in O(1) and leave stale ids behind; those are
    /// compacted, so memory follows the live waiters, not the traffic.
    @Test func waitersThatLeaveLeaveNothingBehind() async throws {
        let queue = queue()
        let staying = wait(queue, 0, after: .seconds(60))
        try await until("one stays") { queue.count == 1 }
        for item in 1...300 {
            let leaving = wait(queue, item, after: .seconds(30))
            try await until("queued") { queue.count == 2 }
            leaving.cancel()
            _ = try? await leaving.value
            #expect(queue.count == 1)
            #expect(queue.staleIDs <= 2 * (64 + 4), "compacted: at \(item), \(queue.staleIDs) stale")
        }
        #expect(handOutAll(queue) == [0])
        #expect(try await staying.value == 0)
    }

    /// Hand-outs, cancellations and expiries race on many waiters: each ends exactly once, with
    /// the outcome of whichever got to it first.
    @Test func everyWaiterIsResumedExactlyOnceUnderRaces() async throws {
        let count = 400
        let queue = queue(maximumWaiting: count)
        let tasks = (0..<count).map { wait(queue, $0, after: .milliseconds($0 % 7 + 1)) }
        try await until("all queued") { queue.count == count }
        let handedOut = NIOLockedValueBox(Set<Int>())
        await withTaskGroup(of: Void.self) { group in
            for index in stride(from: 0, to: count, by: 3) { group.addTask { tasks[index].cancel() } }
            group.addTask { clock.advance(by: .milliseconds(4)) }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<50 {
                        let taken = queue.withLock { $1.popFirst() }
                        guard let taken else { return }
                        handedOut.withLockedValue { _ = $0.insert(taken.item) }
                        taken.resume(returning: taken.item)
                    }
                }
            }
        }
        clock.advance(by: .seconds(1))
        var outcomes = (values: Set<Int>(), cancelled: 0, timedOut: 0)
        for task in tasks {
            do {
                outcomes.values.insert(try await task.value)
            } catch is CancellationError {
                outcomes.cancelled += 1
            } catch {
                #expect(error as? WaitError == .timedOut)
                outcomes.timedOut += 1
            }
        }
        #expect(outcomes.values == handedOut.withLockedValue { $0 }, "exactly the waiters handed out got a value")
        #expect(outcomes.values.count + outcomes.cancelled + outcomes.timedOut == count)
        #expect(queue.count == 0)
        try await until("watcher ended") { !queue.isWatching }
    }
}
