import NIOCore
import NIOSSL

/// The connections to one push service endpoint for one provider and environment: a request
/// takes a stream on an open connection, and a new connection is opened only when every open one
/// is out of streams (up to `maximumConnections`). Retired connections (GOAWAY, closed) are
/// dropped and their requests go to a fresh one.
actor HTTP2ConnectionPool {
    let endpoint: PushEndpoint
    private let tls: NIOSSLContext
    private let group: any EventLoopGroup
    private let maximumConnections: Int
    private let connectTimeout: Duration
    private let pingInterval: Duration
    private var isClosed = false
    private var connections: [HTTP2Connection] = []
    /// One connect at a time, shared by every request that needs it.
    private var connecting: Task<HTTP2Connection, any Error>?
    /// Connections opened over the pool's life, for tests and metrics.
    private(set) var connectionsOpened = 0

    init(
        endpoint: PushEndpoint, tls: NIOSSLContext, group: any EventLoopGroup, maximumConnections: Int,
        connectTimeout: Duration, pingInterval: Duration
    ) {
        precondition(maximumConnections >= 1)
        self.endpoint = endpoint
        self.tls = tls
        self.group = group
        self.maximumConnections = maximumConnections
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
    }

    /// Sends `request` on a pooled connection. Throws `ConnectionFailure` when there is no
    /// answer; the caller's retry rules decide what happens next.
    func send(_ request: PushHTTPRequest, timeout: Duration) async throws(ConnectionFailure) -> PushHTTPResponse {
        let connection = try await leaseStream()
        return try await connection.send(request, timeout: timeout)
    }

    /// A connection with a stream reserved for the caller. When every connection is busy and no
    /// more may be opened, the least busy one is used anyway: its HTTP/2 handler queues the
    /// stream until the server allows it.
    private func leaseStream() async throws(ConnectionFailure) -> HTTP2Connection {
        while true {
            // After shutdown nothing reconnects; the caller's attempts end as connection failures.
            guard !isClosed else { throw .closed }
            connections.removeAll { $0.isRetired }
            if let free = connections.first(where: { $0.reserveStream() }) { return free }
            if connections.count >= maximumConnections,
                let least = connections.min(by: { $0.openStreams < $1.openStreams })
            {
                if least.reserveStream(evenIfFull: true) { return least }
                continue
            }
            let connection = try await connect()
            if connection.reserveStream() { return connection }
        }
    }

    private func connect() async throws(ConnectionFailure) -> HTTP2Connection {
        if connecting == nil {
            let (endpoint, tls, group, timeout, ping) = (endpoint, self.tls, self.group, connectTimeout, pingInterval)
            connecting = Task {
                try await HTTP2Connection.connect(
                    to: endpoint, tls: tls, group: group, timeout: timeout, pingInterval: ping)
            }
        }
        let task = connecting!
        do {
            let connection = try await task.value
            if connecting == task {
                connecting = nil
                connections.append(connection)
                connectionsOpened += 1
            }
            return connection
        } catch {
            if connecting == task { connecting = nil }
            throw (error as? ConnectionFailure) ?? .connect("\(error)")
        }
    }

    func close() {
        isClosed = true
        connecting?.cancel()
        for connection in connections { connection.close() }
        connections.removeAll()
    }
}
