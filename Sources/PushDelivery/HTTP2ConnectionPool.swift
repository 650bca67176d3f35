import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import Waiting

/// The connections to one push service endpoint for one provider and environment: a request
/// takes a stream on an open connection, and a new connection is opened only when every open one
/// is out of streams (up to `maximumConnections`). Retired connections (GOAWAY, closed, found
/// dead by `ConnectionHealth`) are dropped before every choice, so a request resent after its
/// connection was lost goes to another one, opened if need be.
///
/// A request that finds a free stream on an open connection takes it without entering the actor
/// (`usable`): two hops on and off the actor per push cost more than the push's own framing.
actor HTTP2ConnectionPool {
    let endpoint: PushEndpoint
    /// `endpoint.authority`, made once: the `:authority` of every request sent here.
    let authority: String
    private let tls: NIOSSLContext
    private let group: any EventLoopGroup
    private let maximumConnections: Int
    private let connectTimeout: Duration
    private let pingInterval: Duration
    private let pingTimeout: Duration
    private var isClosed = false
    private var connections: [HTTP2Connection] = [] {
        didSet { usable.withLockedValue { $0 = isClosed ? [] : connections } }
    }
    /// `connections`, readable without the actor; empty once closed.
    private let usable = NIOLockedValueBox<[HTTP2Connection]>([])
    /// One connect at a time; the requests waiting for it, each until its own deadline.
    private var isConnecting = false
    private let waiters = WaiterQueue<Void, Void, HTTP2Connection>(
        (), maximumWaiting: .max, timeoutError: ConnectionFailure.timedOut)
    /// Connections opened over the pool's life, for tests and metrics.
    private(set) var connectionsOpened = 0

    /// Connections open now and the streams in use on them, for metrics: what a retired
    /// connection still carries counts until it is dropped.
    var openConnections: Int { connections.count { !$0.isRetired } }
    var openStreams: Int { connections.reduce(0) { $0 + $1.openStreams } }

    init(
        endpoint: PushEndpoint, tls: NIOSSLContext, group: any EventLoopGroup, maximumConnections: Int,
        connectTimeout: Duration, pingInterval: Duration, pingTimeout: Duration
    ) {
        precondition(maximumConnections >= 1)
        self.endpoint = endpoint
        authority = endpoint.authority
        self.tls = tls
        self.group = group
        self.maximumConnections = maximumConnections
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
    }

    /// Sends `request` on a pooled connection, all within `timeout` — connecting included, so a
    /// server that accepts but never completes TLS cannot hold a push past its deadline. Throws
    /// `ConnectionFailure` when there is no answer; the caller's retry rules decide what next.
    /// `pushDeadline`, the end of the whole push, bounds the wait to learn whether an unanswered
    /// request's connection is dead (`HTTP2Connection.send`).
    nonisolated func send(_ request: PushHTTPRequest, timeout: Duration, pushDeadline: ContinuousClock.Instant? = nil)
        async throws(ConnectionFailure) -> PushHTTPResponse
    {
        let deadline = ContinuousClock.now + timeout
        if let free = usable.withLockedValue({ $0 }).first(where: { $0.reserveStream() }) {
            return try await free.send(request, timeout: timeout, pushDeadline: pushDeadline ?? deadline)
        }
        let connection = try await leaseStream(before: deadline)
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else {
            connection.releaseStream()
            throw .timedOut
        }
        return try await connection.send(request, timeout: remaining, pushDeadline: pushDeadline ?? deadline)
    }

    /// A connection with a stream reserved for the caller. When every connection is busy and no
    /// more may be opened, the least busy one is used anyway: its HTTP/2 handler queues the
    /// stream until the server allows it.
    private func leaseStream(before deadline: ContinuousClock.Instant) async throws(ConnectionFailure)
        -> HTTP2Connection
    {
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
            let connection = try await connection(before: deadline)
            if connection.reserveStream() { return connection }
        }
    }

    /// The connection being opened — one at a time, shared by every request that needs it. A
    /// caller stops waiting at its deadline; the connect itself runs on and joins the pool, so
    /// the next request finds it.
    private func connection(before deadline: ContinuousClock.Instant) async throws(ConnectionFailure)
        -> HTTP2Connection
    {
        if !isConnecting { startConnecting() }
        do {
            // Queued on this actor before it suspends, so a connect finishing next finds it.
            return try await waiters.wait(for: (), until: deadline, cancellable: false) { _, _ in nil }
        } catch {
            throw (error as? ConnectionFailure) ?? .connect("\(error)")
        }
    }

    private func startConnecting() {
        isConnecting = true
        let (endpoint, tls, group, timeout) = (endpoint, self.tls, self.group, connectTimeout)
        let (pingInterval, pingTimeout) = (self.pingInterval, self.pingTimeout)
        Task {
            do throws(ConnectionFailure) {
                self.connected(
                    try await HTTP2Connection.connect(
                        to: endpoint, tls: tls, group: group, timeout: timeout, pingInterval: pingInterval,
                        pingTimeout: pingTimeout))
            } catch {
                self.connectFailed(error)
            }
        }
    }

    private func connected(_ connection: HTTP2Connection) {
        isConnecting = false
        guard !isClosed else {
            connection.close()
            return resumeWaiters(with: .failure(.closed))
        }
        connections.append(connection)
        connectionsOpened += 1
        resumeWaiters(with: .success(connection))
    }

    private func connectFailed(_ failure: ConnectionFailure) {
        isConnecting = false
        resumeWaiters(with: .failure(failure))
    }

    private func resumeWaiters(with result: Result<HTTP2Connection, ConnectionFailure>) {
        let waiting = waiters.withLock { $1.removeAll() }
        for waiter in waiting { waiter.resume(with: result.mapError { $0 }) }
    }

    /// Takes no more requests; the streams in flight finish (or `grace` passes) before the
    /// connections close, so a sender replaced by a key rotation does not cut its pushes.
    func close(grace: Duration = .zero) async {
        isClosed = true
        usable.withLockedValue { $0 = [] }
        resumeWaiters(with: .failure(.closed))
        let deadline = ContinuousClock.now + grace
        for connection in connections { await connection.drained(before: deadline) }
        for connection in connections { connection.close() }
        connections.removeAll()
    }
}
