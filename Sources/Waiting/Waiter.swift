/// A caller taken out of a `WaiterQueue`'s line: whoever took it resumes it, exactly once (being
/// out of the queue, nothing else can reach it). Taking and resuming are split so that the
/// resume happens after the lock is released.
public struct Waiter<Item: Sendable, Value: Sendable>: Sendable {
    /// What the caller brought along (a request to batch, say); `Void` for a plain wait.
    public let item: Item
    public let lane: Int
    public let deadline: ContinuousClock.Instant?
    @usableFromInline let resumption: Resumption

    /// How the caller is woken: a task's continuation (`WaiterQueue.wait`), or, for a caller that
    /// is not a task, its completion (`WaiterQueue.enqueue`), run on the resumer's thread.
    @usableFromInline
    enum Resumption: Sendable {
        /// Unsafe, not checked: a checked continuation allocates a canary per wait, and the queue
        /// hands each waiter out once, under its lock.
        case continuation(UnsafeContinuation<Value, any Error>)
        case completion(@Sendable (Result<Value, any Error>) -> Void)
    }

    @inlinable
    init(item: Item, lane: Int, deadline: ContinuousClock.Instant?, resumption: Resumption) {
        self.item = item
        self.lane = lane
        self.deadline = deadline
        self.resumption = resumption
    }

    @inlinable
    public func resume(returning value: Value) {
        resume(with: .success(value))
    }

    @inlinable
    public func resume(throwing error: any Error) {
        resume(with: .failure(error))
    }

    @inlinable
    public func resume(with result: Result<Value, any Error>) {
        switch resumption {
        case .continuation(let continuation): continuation.resume(with: result)
        case .completion(let completion): completion(result)
        }
    }
}

extension Waiter where Value == Void {
    @inlinable
    public func resume() {
        resume(with: .success(()))
    }
}
