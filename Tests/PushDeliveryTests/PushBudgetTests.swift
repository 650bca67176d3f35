import NIOConcurrencyHelpers
import Testing
import Waiting

@testable import PushDelivery

/// A provider's budget of in-flight pushes: FIFO per lane, a deadline on every wait, and bulk
/// limited to its share and paused while an interactive push waits.
@Suite(.timeLimit(.minutes(1))) struct PushBudgetTests {
    static func later(_ seconds: Int = 30) -> ContinuousClock.Instant { .now + .seconds(seconds) }

    /// Waits (without timing anything) until `budget` has `count` pushes waiting.
    static func untilWaiting(_ budget: PushBudget, _ count: Int) async {
        while budget.waiting != count { await Task.yield() }
    }

    @Test func aPushBeyondTheLimitGetsTheFirstFreedSlot() async {
        let budget = PushBudget(limit: 2, bulkShare: 0.5)
        #expect(await budget.acquire(.interactive, before: Self.later()))
        #expect(await budget.acquire(.interactive, before: Self.later()))
        async let third = budget.acquire(.interactive, before: Self.later())
        await Self.untilWaiting(budget, 1)
        #expect(budget.inFlight == 2)
        budget.release(.interactive)
        #expect(await third)
        #expect(budget.inFlight == 2 && budget.waiting == 0)
    }

    @Test func aPushWithNoSlotBeforeItsDeadlineIsNeverRun() async {
        let clock = ManualClock()
        let budget = PushBudget(limit: 1, bulkShare: 0.5, clock: clock)
        #expect(await budget.acquire(.interactive, before: Self.later()))
        let ran = NIOLockedValueBox(false)
        let late = Task {
            await budget.withSlot(.interactive, before: clock.now + .milliseconds(100)) {
                ran.withLockedValue { $0 = true }
                return 1
            }
        }
        await Self.untilWaiting(budget, 1)
        while clock.sleepers == 0 { await Task.yield() }
        clock.advance(by: .milliseconds(100))
        #expect(await late.value == nil && !ran.withLockedValue { $0 })
        #expect(budget.waiting == 0 && budget.inFlight == 1)
        budget.release(.interactive)
        #expect(await budget.withSlot(.interactive, before: Self.later()) { 2 } == 2)
        #expect(budget.inFlight == 0)
    }

    @Test func waitersOfOneLaneStartInTheOrderTheyCame() async {
        let budget = PushBudget(limit: 1, bulkShare: 1)
        #expect(await budget.acquire(.interactive, before: Self.later()))
        let order = NIOLockedValueBox([Int]())
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<3 {
                await Self.untilWaiting(budget, index)
                group.addTask {
                    _ = await budget.withSlot(.interactive, before: Self.later()) {
                        order.withLockedValue { $0.append(index) }
                    }
                }
            }
            await Self.untilWaiting(budget, 3)
            budget.release(.interactive)
        }
        #expect(order.withLockedValue { $0 } == [0, 1, 2])
    }

    /// Bulk holds at most its share; a freed slot goes to a waiting interactive push before any
    /// waiting bulk one, and bulk resumes once no interactive push waits.
    @Test func bulkTakesOnlyItsShareAndWaitsBehindInteractivePushes() async {
        let budget = PushBudget(limit: 4, bulkShare: 0.5)
        #expect(budget.bulkLimit == 2)
        #expect(await budget.acquire(.bulk, before: Self.later()))
        #expect(await budget.acquire(.bulk, before: Self.later()))
        async let thirdBulk = budget.acquire(.bulk, before: Self.later())
        await Self.untilWaiting(budget, 1)
        // The bulk share is used up, but interactive pushes still have the rest.
        #expect(await budget.acquire(.interactive, before: Self.later()))
        #expect(await budget.acquire(.interactive, before: Self.later()))
        async let waitingInteractive = budget.acquire(.interactive, before: Self.later())
        await Self.untilWaiting(budget, 2)
        budget.release(.bulk)
        #expect(await waitingInteractive)
        #expect(budget.waiting == 1)
        budget.release(.interactive)
        #expect(await thirdBulk)
        #expect(budget.inFlight == 4 && budget.waiting == 0)
    }

    @Test func aCancelledWaiterLeavesTheQueue() async {
        let budget = PushBudget(limit: 1, bulkShare: 0.5)
        #expect(await budget.acquire(.interactive, before: Self.later()))
        let waiter = Task { await budget.acquire(.interactive, before: Self.later()) }
        await Self.untilWaiting(budget, 1)
        waiter.cancel()
        #expect(await waiter.value == false)
        #expect(budget.waiting == 0 && budget.inFlight == 1)
    }

    /// A full queue refuses at once; a waiter that left mid-queue is skipped, and the next one
    /// behind it gets the slot.
    @Test func theQueueIsBoundedAndSkipsWaitersThatLeft() async {
        let budget = PushBudget(limit: 1, bulkShare: 0.5, maximumWaiting: 2)
        #expect(await budget.acquire(.interactive, before: Self.later()))
        let leaving = Task { await budget.acquire(.interactive, before: Self.later()) }
        await Self.untilWaiting(budget, 1)
        async let staying = budget.acquire(.interactive, before: Self.later())
        await Self.untilWaiting(budget, 2)
        #expect(await budget.acquire(.interactive, before: Self.later()) == false)
        leaving.cancel()
        #expect(await leaving.value == false)
        budget.release(.interactive)
        #expect(await staying)
        #expect(budget.waiting == 0 && budget.inFlight == 1)
    }
}

extension PushBudgetTests {
    /// A slot freed once a waiter's deadline has passed is not given to it, whether the watcher
    /// or `release` sees it first: it goes on to the next one in line.
    @Test func aSlotFreedPastAWaitersDeadlineGoesToTheNextInLine() async {
        let clock = ManualClock()
        let budget = PushBudget(limit: 1, bulkShare: 0.5, clock: clock)
        #expect(await budget.acquire(.interactive, before: Self.later()))
        let overdue = Task { await budget.acquire(.interactive, before: clock.now + .seconds(1)) }
        await Self.untilWaiting(budget, 1)
        let onTime = Task { await budget.acquire(.interactive, before: clock.now + .seconds(10)) }
        await Self.untilWaiting(budget, 2)
        clock.advance(by: .seconds(1))
        budget.release(.interactive)
        #expect(await overdue.value == false)
        #expect(await onTime.value == true)
        #expect(budget.inFlight == 1 && budget.waiting == 0)
    }
}
