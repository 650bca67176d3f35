import DequeModule
import NIOConcurrencyHelpers

/// A counting semaphore for tasks: `acquire` waits (first come, first served) while `limit`
/// holders have a slot. A waiter cancelled before it gets a slot leaves the queue and throws
/// `CancellationError`, so shutting down never strands a task here.
final class AsyncSlots: Sendable {
    private struct State {
        var free: Int
        var nextID = 0
        var waiters: Deque<(id: Int, continuation: CheckedContinuation<Void, any Error>)> = []
        var cancelled: Set<Int> = []
    }

    private let state: NIOLockedValueBox<State>

    init(limit: Int) {
        state = NIOLockedValueBox(State(free: max(1, limit)))
    }

    func acquire() async throws {
        let id: Int? = state.withLockedValue { state in
            if state.free > 0 {
                state.free -= 1
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelledAlready = state.withLockedValue { state in
                    if state.cancelled.remove(id) != nil { return true }
                    state.waiters.append((id, continuation))
                    return false
                }
                if cancelledAlready { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    func release() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
            guard let waiter = state.waiters.popFirst() else {
                state.free += 1
                return nil
            }
            return waiter.continuation
        }
        next?.resume()
    }
}
