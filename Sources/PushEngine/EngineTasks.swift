import NIOConcurrencyHelpers
import PushDelivery

/// The tasks the engine starts that outlive the request that started them, counted so that
/// shutdown waits for them before it closes the senders: a call event whose webhook was answered
/// at its budget, or whose client hung up, goes on sending after the answer, and a deploy must not
/// cut that ring; a replaced sender closes once the pushes it carries have finished; a credential
/// renewal (APNs provider token, FCM access token) that runs ahead of the pushes needing it
/// finishes rather than being left running past the engine. Each ends by its own deadline (a call
/// event's at most 30 s, a sender's attempt timeout, a background token exchange's 30 s).
final class EngineTasks: BackgroundTasks {
    private struct State {
        var running = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Runs `work` in a task of its own, so that neither a hang-up nor an early answer cancels
    /// pushes half-way; counted until it ends.
    @discardableResult
    func start<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        state.withLockedValue { $0.running += 1 }
        return Task {
            defer { finished() }
            return try await work()
        }
    }

    var count: Int { state.withLockedValue { $0.running } }

    /// Returns once no task is running.
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLockedValue { state in
                if state.running == 0 { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func finished() {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
