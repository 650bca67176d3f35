/// A caller taken out of a `WaiterQueue`'s line: whoever took it resumes it, exactly once (being
/// out of the queue, nothing else can reach it). Taking and resuming are split so that the
/// resume happens after the lock is released.
public struct Waiter<Item: Sendable, Value: Sendable>: Sendable {
    /// What the caller brought along (a request to batch, say); `Void` for a plain wait.
    public let item: Item
    public let lane: Int
    public let deadline: ContinuousClock.Instant?
    /// Unsafe, not checked: a checked continuation allocates a canary per wait, and the queue
    /// hands each waiter out once, under its lock.
    @usableFromInline let continuation: UnsafeContinuation<Value, any Error>

    @inlinable
    init(item: Item, lane: Int, deadline: ContinuousClock.Instant?, continuation: UnsafeContinuation<Value, any Error>)
    {
        self.item = item
        self.lane = lane
        self.deadline = deadline
        self.continuation = continuation
    }

    @inlinable
    public func resume(returning value: Value) {
        continuation.resume(returning: value)
    }

    @inlinable
    public func resume(throwing error: any Error) {
        continuation.resume(throwing: error)
    }

    @inlinable
    public func resume(with result: Result<Value, any Error>) {
        continuation.resume(with: result)
    }
}

extension Waiter where Value == Void {
    @inlinable
    public func resume() {
        continuation.resume()
    }
}
