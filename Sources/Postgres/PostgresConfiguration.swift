/// How the pool reaches PostgreSQL and how long it waits for it.
public struct PostgresConfiguration: Sendable {
    /// A libpq connection URI or keyword string (`DATABASE_URL`). Settings in it win over
    /// `applicationName` and the TCP keepalive defaults.
    public var url: String
    public var applicationName = "device-registry"
    /// Budget for opening one connection, TCP and startup included.
    public var connectTimeout: Duration = .seconds(2)
    /// Set as `statement_timeout` on every connection. A reply that takes a second longer than this
    /// means the server or the network is stuck; the connection is then dropped as lost.
    public var statementTimeout: Duration = .seconds(1)
    public var poolSize = 10
    /// Of the pool's connections, how many run group-commit batches at once (the rest serve
    /// reads). Fewer means larger batches: on a small server one, whose batches share one WAL flush
    /// and one statement among the most writes, served the most.
    public var writeConnections = 1
    /// How many connections run batched reads (a user's devices) at once; see `writeConnections`.
    public var readConnections = 2
    /// How long a caller waits for a free connection before `.poolTimeout`.
    public var poolWaitTimeout: Duration = .milliseconds(500)
    /// Most callers that may wait for a connection at once, and most requests a batch queue
    /// holds; past it they are refused at once with `.queueFull` (503), so that sustained
    /// overload does not keep every waiting request in memory.
    public var maxWaiting = 4096
    /// Named prepared statements, or unnamed ones for a transaction-pooling PgBouncer.
    public var preparedStatements = PreparedStatements.auto

    public init(
        url: String,
        applicationName: String = "device-registry",
        connectTimeout: Duration = .seconds(2),
        statementTimeout: Duration = .seconds(1),
        poolSize: Int = 10,
        poolWaitTimeout: Duration = .milliseconds(500)
    ) {
        self.url = url
        self.applicationName = applicationName
        self.connectTimeout = connectTimeout
        self.statementTimeout = statementTimeout
        self.poolSize = poolSize
        self.poolWaitTimeout = poolWaitTimeout
    }
}
