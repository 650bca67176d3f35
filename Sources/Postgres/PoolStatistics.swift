/// A snapshot of the pool, for metrics and /readyz.
public struct PoolStatistics: Sendable, Equatable {
    /// Configured number of connections.
    public var size: Int
    /// Connections held by callers.
    public var inUse: Int
    /// Open connections waiting for a caller.
    public var idle: Int
    /// Callers waiting for a connection.
    public var waiting: Int

    public init(size: Int, inUse: Int, idle: Int, waiting: Int) {
        (self.size, self.inUse, self.idle, self.waiting) = (size, inUse, idle, waiting)
    }
}
