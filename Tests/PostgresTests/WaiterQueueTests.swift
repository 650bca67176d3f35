import NIOConcurrencyHelpers
import TestSupport
import Testing

@testable import Postgres

/// The pool's waiting callers (`PoolState`): bounded, and a cancellation that arrives before the
/// waiter is queued is not lost.
@Suite("Pool waiters")
struct WaiterQueueTests {
    /// Enqueues a real continuation and returns how `enqueue` settled it. A waiter that was
    /// queued instead is taken back out, so the test fails rather than hangs.
    static func admit(
        _ state: NIOLockedValueBox<PoolState>, id: UInt64
    ) async -> Result<PoolSlot, any Error>? {
        let queued = NIOLockedValueBox(false)
        let outcome = await Result<PoolSlot, any Error>.of {
            try await withCheckedThrowingContinuation { (waiter: PoolState.Waiter) in
                switch state.withLockedValue({ $0.enqueue(waiter, id: id, deadline: .now + .seconds(60)) }) {
                case .settled(let result):
                    waiter.resume(with: result)
                case .waiting:
                    queued.withLockedValue { $0 = true }
                    state.withLockedValue { $0.cancelWaiter(id: id) }?.resume(throwing: CancellationError())
                }
            }
        }
        return queued.withLockedValue { $0 } ? nil : outcome
    }

    @Test func aWaiterCancelledBeforeItIsQueuedIsRefusedAtOnce() async throws {
        let state = NIOLockedValueBox(PoolState(size: 1, maxWaiting: 8))
        #expect(state.withLockedValue { $0.takeFree() } != nil)
        let id = state.withLockedValue { $0.announceWaiter() }
        #expect(state.withLockedValue { $0.cancelWaiter(id: id) } == nil, "nothing to resume yet")
        let outcome = try #require(await Self.admit(state, id: id), "the cancelled waiter was queued")
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(state.withLockedValue { $0.statistics.waiting } == 0)
    }

    @Test func pastMaxWaitingAWaiterIsRefusedAtOnce() async throws {
        let state = NIOLockedValueBox(PoolState(size: 1, maxWaiting: 1))
        #expect(state.withLockedValue { $0.takeFree() } != nil)
        let first = state.withLockedValue { $0.announceWaiter() }
        let waiting = Task {
            try await withCheckedThrowingContinuation { (waiter: PoolState.Waiter) in
                _ = state.withLockedValue { $0.enqueue(waiter, id: first, deadline: .now + .seconds(60)) }
            }
        }
        while state.withLockedValue({ $0.statistics.waiting }) == 0 { await Task.yield() }
        let second = state.withLockedValue { $0.announceWaiter() }
        let outcome = try #require(await Self.admit(state, id: second), "a waiter past the limit was queued")
        #expect(throws: PostgresError.queueFull) { try outcome.get() }
        state.withLockedValue { $0.cancelWaiter(id: first) }?.resume(throwing: CancellationError())
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

    @Test func cancelledWaitersAreSkippedWhenASlotComesBack() async throws {
        let state = NIOLockedValueBox(PoolState(size: 1, maxWaiting: 8))
        let slot = try #require(state.withLockedValue { $0.takeFree() })
        let ids = (0..<3).map { _ in state.withLockedValue { $0.announceWaiter() } }
        let tasks = ids.map { id in
            Task {
                try await withCheckedThrowingContinuation { (waiter: PoolState.Waiter) in
                    _ = state.withLockedValue { $0.enqueue(waiter, id: id, deadline: .now + .seconds(60)) }
                }
            }
        }
        while state.withLockedValue({ $0.statistics.waiting }) < 3 { await Task.yield() }
        for id in ids.prefix(2) {
            state.withLockedValue { $0.cancelWaiter(id: id) }?.resume(throwing: CancellationError())
        }
        state.withLockedValue { $0.checkin(slot) }?.resume(returning: slot)
        #expect(try await tasks[2].value === slot, "the slot went to the one still waiting")
        for task in tasks.prefix(2) { await #expect(throws: CancellationError.self) { try await task.value } }
    }
}
