import NIOCore

/// Every limit and timeout of the server. The defaults suit production; tests shorten the timeouts.
public struct HTTPServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port; read it back from ``HTTPServer/localAddress``.
    public var port: Int
    /// Longest request line (method, target, version) before a 414.
    public var maxRequestLineBytes: Int
    /// Largest header block (all header lines, and separately the trailers) before a 431.
    public var maxHeaderBytes: Int
    /// Most header lines before a 431.
    public var maxHeaderCount: Int
    /// Largest request body before a 413, unless the route sets its own `bodyLimit`.
    public var maxBodyBytes: Int
    /// How long a keep-alive connection may sit with no request in progress.
    public var idleTimeout: TimeAmount
    /// Deadline from a request's first byte to the end of its headers.
    public var headerReadTimeout: TimeAmount
    /// Longest wait for the next body bytes while the server is asking for them. A progress
    /// timeout rather than a deadline, because streamed bodies may be large.
    public var bodyReadTimeout: TimeAmount
    /// Requests served on one connection before it is closed (`Connection: close` on the last).
    public var maxRequestsPerConnection: Int
    /// How long graceful shutdown waits for in-flight requests before force-closing connections.
    public var shutdownGracePeriod: TimeAmount
    /// Most connections open at once; one accepted past it is closed at once (and counted in
    /// `http_connections_rejected_total`), the open ones are not affected.
    public var maxConnections: Int
    /// How long a response may wait for a client that does not read it: past it the connection
    /// is closed and the bytes buffered for it are freed. Waiting starts when the outbound buffer
    /// is full (the channel turns unwritable), so a slow but reading client is never cut off.
    public var writeTimeout: TimeAmount

    public init(
        host: String = "127.0.0.1", port: Int = 8080, maxRequestLineBytes: Int = 8 * 1024,
        maxHeaderBytes: Int = 16 * 1024, maxHeaderCount: Int = 64, maxBodyBytes: Int = 64 * 1024,
        idleTimeout: TimeAmount = .seconds(60), headerReadTimeout: TimeAmount = .seconds(10),
        bodyReadTimeout: TimeAmount = .seconds(10), maxRequestsPerConnection: Int = 1000,
        shutdownGracePeriod: TimeAmount = .seconds(10), maxConnections: Int = 4096,
        writeTimeout: TimeAmount = .seconds(30)
    ) {
        self.host = host
        self.port = port
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
        self.headerReadTimeout = headerReadTimeout
        self.bodyReadTimeout = bodyReadTimeout
        self.maxRequestsPerConnection = maxRequestsPerConnection
        self.shutdownGracePeriod = shutdownGracePeriod
        self.maxConnections = maxConnections
        self.writeTimeout = writeTimeout
    }
}
