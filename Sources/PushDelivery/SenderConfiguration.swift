import PushRules

/// Limits every sender applies, per provider.
public struct SenderConfiguration: Sendable {
    /// Connections per endpoint; more are opened only when the open ones are out of streams.
    public var maximumConnections: Int
    public var connectTimeout: Duration
    /// Each attempt's own limit, shortened to what is left before the deadline.
    public var attemptTimeout: Duration
    public var retryPolicy: RetryPolicy

    public init(
        maximumConnections: Int = 4, connectTimeout: Duration = .seconds(5), attemptTimeout: Duration = .seconds(10),
        retryPolicy: RetryPolicy = RetryPolicy()
    ) {
        self.maximumConnections = maximumConnections
        self.connectTimeout = connectTimeout
        self.attemptTimeout = attemptTimeout
        self.retryPolicy = retryPolicy
    }
}
