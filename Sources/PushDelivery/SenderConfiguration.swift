import PushRules

/// Limits every sender applies, per provider.
public struct SenderConfiguration: Sendable {
    /// Connections per endpoint; more are opened only when the open ones are out of streams.
    public var maximumConnections: Int
    public var connectTimeout: Duration
    /// Each attempt's own limit, shortened to what is left before the deadline.
    public var attemptTimeout: Duration
    public var retryPolicy: RetryPolicy
    /// A connection silent this long is sent a PING, and closed if still silent as long again.
    public var pingInterval: Duration

    public init(
        maximumConnections: Int = 4, connectTimeout: Duration = .seconds(5), attemptTimeout: Duration = .seconds(10),
        retryPolicy: RetryPolicy = RetryPolicy(), pingInterval: Duration = .seconds(60)
    ) {
        self.maximumConnections = maximumConnections
        self.connectTimeout = connectTimeout
        self.attemptTimeout = attemptTimeout
        self.retryPolicy = retryPolicy
        self.pingInterval = pingInterval
    }
}
