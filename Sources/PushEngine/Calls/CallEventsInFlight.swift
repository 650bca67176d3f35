import NIOConcurrencyHelpers

/// The call events being sent, counted so that shutdown can wait for them before it closes the
/// senders: a webhook answered at its budget, or a client that hung up, leaves its event
/// sending after the answer, and a deploy must not cut that ring. Each ends by its event's
/// deadline (at most 30 s) and the write of its results.
final class CallEventsInFlight: Sendable {
    private struct State {
        var running = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Runs `work` in a task of its own, so that neither a hang-up nor an early answer cancels
    /// pushes half-way; counted until it ends.
    func start<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        state.withLockedValue { $0.running += 1 }
        return Task {
            defer { finished() }
            return try await work()
        }
    }

    var count: Int { state.withLockedValue { $0.running } }

    /// Returns once nothing is being sent.
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
