/// When to try a transient failure again: jittered exponential backoff that honours the
/// service's `Retry-After` and never waits past the message's deadline — a 30-second ring is
/// retried inside its 30 seconds or not at all.
public struct RetryPolicy: Sendable, Equatable {
    /// The base wait after the first failure; it doubles per attempt up to `maximumDelay`.
    public var initialDelay: Duration
    public var maximumDelay: Duration
    /// Attempts in all, the first included.
    public var maximumAttempts: Int

    public init(
        initialDelay: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(5), maximumAttempts: Int = 5
    ) {
        precondition(initialDelay > .zero && maximumDelay >= initialDelay && maximumAttempts >= 1)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
    }

    /// The wait before the next attempt, after attempt number `attempt` (1 for the first) failed
    /// transiently; nil to give up. `remaining` is the time left before the deadline (and the
    /// APNs expiration). `jitter`, in 0..<1, spreads the wait over the upper half of the
    /// exponential step ("equal jitter"), so clients that failed together do not retry together
    /// yet none retries at once. A `Retry-After` longer than the step wins; a wait that would end
    /// at or after the deadline gives up instead.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?, remaining: Duration, jitter: Double)
        -> Duration?
    {
        precondition(attempt >= 1 && (0..<1).contains(jitter))
        guard attempt < maximumAttempts else { return nil }
        var step = initialDelay
        for _ in 1..<attempt where step < maximumDelay { step *= 2 }
        step = min(step, maximumDelay)
        let jittered = step / 2 + (step / 2) * jitter
        let delay = max(jittered, retryAfter ?? .zero)
        return delay < remaining ? delay : nil
    }
}
