import Waiting

/// A counting semaphore for tasks: `acquire` waits (first come, first served) while `limit`
/// holders have a slot. A waiter cancelled before it gets a slot leaves the queue and throws
/// `CancellationError`, so shutting down never strands a task here.
final class AsyncSlots: Sendable {
    /// Free slots, beside the tasks waiting for one; no deadline and no bound (the callers are a
    /// fixed set of workers).
    private let queue: WaiterQueue<Int, Void, Void>

    init(limit: Int) {
        queue = WaiterQueue(max(1, limit), maximumWaiting: .max)
    }

    func acquire() async throws {
        try await queue.wait(for: (), until: nil) { free, _ in
            guard free > 0 else { return nil }
            free -= 1
            return ()
        }
    }

    func release() {
        let next = queue.withLock { free, waiters -> Waiter<Void, Void>? in
            guard let next = waiters.popFirst() else {
                free += 1
                return nil
            }
            return next
        }
        next?.resume()
    }
}
