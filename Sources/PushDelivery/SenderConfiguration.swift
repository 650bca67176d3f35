import PushRules

/// Limits every sender applies, per provider.
public struct SenderConfiguration: Sendable {
    /// Connections per endpoint; more are opened only when the open ones are out of streams.
    public var maximumConnections: Int
    public var connectTimeout: Duration
    /// Each attempt's own limit, shortened to what is left before the deadline.
    public var attemptTimeout: Duration
    public var retryPolicy: RetryPolicy
    /// A connection without open streams that reads nothing this long is sent a PING.
    public var pingInterval: Duration
    /// A PING not answered within this retires the connection; with streams open, reads that
    /// stop for a quarter of it bring a PING, and so does a stream timeout (`ConnectionHealth`).
    public var pingTimeout: Duration
    /// Pushes one provider may have in flight (`PushBudget`); more wait, each until its deadline.
    public var concurrency: Int
    /// The fraction of `concurrency` background jobs' pushes (the bulk lane) may hold.
    public var bulkShare: Double

    public init(
        maximumConnections: Int = 4, connectTimeout: Duration = .seconds(5), attemptTimeout: Duration = .seconds(10),
        retryPolicy: RetryPolicy = RetryPolicy(), pingInterval: Duration = .seconds(60),
        pingTimeout: Duration = .seconds(1), concurrency: Int = 256,
        bulkShare: Double = 0.5
    ) {
        self.maximumConnections = maximumConnections
        self.connectTimeout = connectTimeout
        self.attemptTimeout = attemptTimeout
        self.retryPolicy = retryPolicy
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.concurrency = concurrency
        self.bulkShare = bulkShare
    }
}

extension SenderConfiguration {
    /// A provider's budget of in-flight pushes by these limits.
    public func makeBudget() -> PushBudget { PushBudget(limit: concurrency, bulkShare: bulkShare) }
}
