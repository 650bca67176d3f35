import NIOConcurrencyHelpers

/// Waits for a task's value at most a budget, leaving the task running: what an answer with a
/// deadline of its own (the DialStack webhook) needs. Awaiting `task.value` in a task group's
/// child is not enough: cancelling that child does not end the await, so the group still waits
/// for the task.
enum BoundedWait {
    /// The task's value, its error, or nil once `budget` has passed first.
    static func value<T: Sendable>(of task: Task<T, any Error>, within budget: Duration) async throws -> T? {
        let pending = NIOLockedValueBox<CheckedContinuation<T?, any Error>?>(nil)
        let resume = { @Sendable (result: Result<T?, any Error>) in
            pending.withLockedValue { continuation in
                continuation?.resume(with: result)
                continuation = nil
            }
        }
        return try await withCheckedThrowingContinuation { continuation in
            pending.withLockedValue { $0 = continuation }
            // Above the push jobs' priority, like the ring itself (`CallEventDispatch.urgently`).
            let timer = Task(priority: .high) {
                try? await Task.sleep(for: budget)
                resume(.success(nil))
            }
            Task(priority: .high) {
                let result = await task.result
                resume(result.map { $0 })
                // Only now: a timer cancelled first would answer nil before the value.
                timer.cancel()
            }
        }
    }
}
