import Logging
import NIOConcurrencyHelpers
import NIOPosix
import Waiting

/// A fixed number of connections, opened lazily, each used by one caller at a time. Every libpq
/// call runs on the pool's own threads (one per connection), never on an event loop or Swift's
/// cooperative pool; callers just `await`.
///
/// Failure behaviour: a broken connection is dropped and reopened on next use; while the server is
/// down, callers fail fast with `.unavailable` (see `ConnectBackoff`), and the pool recovers by
/// itself when it is back. Call `shutdown()` before dropping the pool.
public final class PostgresPool: Sendable {
    public let configuration: PostgresConfiguration
    let logger: Logger
    private let threads: NIOThreadPool
    /// The pool's books and the callers waiting for a slot, under one lock.
    private let state: PoolState.Queue
    private let metrics = PoolMetrics()

    /// Never blocks and never connects; the first caller does.
    public init(configuration: PostgresConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        let size = max(1, configuration.poolSize)
        threads = NIOThreadPool(numberOfThreads: size)
        threads.start()
        // One watcher task expires every caller's `poolWaitTimeout`, and the gauge follows.
        state = PoolState.Queue(
            PoolState(size: size), lanes: PoolPriority.allCases.count, maximumWaiting: configuration.maxWaiting,
            timeoutError: PostgresError.poolTimeout, fullError: PostgresError.queueFull,
            didExpire: { [metrics] state, waiting in metrics.record(state.statistics(waiting: waiting)) })
        metrics.record(statistics)
    }

    deinit {
        // NIOThreadPool asserts when it is released while running.
        threads.shutdownGracefully { _ in }
    }

    public var statistics: PoolStatistics { state.withLock { $0.statistics(waiting: $1.count) } }

    /// Runs `body` with a connection on a pool thread. Throws `.poolTimeout` when no connection
    /// frees up within `poolWaitTimeout`, `.queueFull` when `maxWaiting` callers already wait,
    /// `.unavailable` when none can be opened or after
    /// `shutdown()`, and whatever `body` throws. When the connection turns out to be dead before
    /// anything reached the server, `body` runs once more on a fresh one. `priority` picks the line
    /// a caller waits in when every connection is busy.
    public func withConnection<T: Sendable>(
        priority: PoolPriority = .normal, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let slot = try await checkout(priority)
        let outcome: Result<T, any Error>
        do {
            outcome = try await threads.runIfActive { [self] in run(body, in: slot) }
        } catch {
            // The closure never ran: the task was cancelled, or the threads are stopping.
            checkin(slot)
            throw error is CancellationError ? error : PostgresError.unavailable
        }
        return try outcome.get()
    }

    /// `withConnection` with `body` inside BEGIN … COMMIT (see `PostgresConnection.transaction`).
    public func withTransaction<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        try await withConnection { try $0.transaction(body) }
    }

    /// Whether `SELECT 1` succeeds, for /readyz. Bounded by the pool's own timeouts.
    public func ping() async -> Bool {
        (try? await withConnection { _ = try $0.query("SELECT 1") }) != nil
    }

    /// Fails waiting callers, closes idle connections (busy ones when they come back) and stops the
    /// threads. Later calls throw `.unavailable`.
    public func shutdown() async {
        let (waiters, free) = state.withLock { $0.shutDown(waiters: &$1) }
        for waiter in waiters { waiter.resume(throwing: PostgresError.unavailable) }
        // Closing only queues a Terminate message on a non-blocking socket; it does not wait.
        for slot in free { slot.connection = nil }
        try? await threads.shutdownGracefully()
        metrics.record(statistics)
    }

    // MARK: Slots

    private func checkout(_ priority: PoolPriority) async throws -> PoolSlot {
        let slot = try await state.wait(
            for: (), lane: priority.rawValue, until: state.clock.now + configuration.poolWaitTimeout,
            admit: { state, _ in try state.admit() },
            whenQueued: { metrics.record(statistics) })
        metrics.record(statistics)
        return slot
    }

    private func checkin(_ slot: PoolSlot) {
        let next = state.withLock { $0.checkin(slot, waiters: &$1) }
        next?.resume(returning: slot)
        metrics.record(statistics)
    }

    // MARK: On a pool thread

    private func run<T>(_ body: (PostgresConnection) throws -> T, in slot: PoolSlot) -> Result<T, any Error> {
        defer { checkin(slot) }
        var mayRetry = true
        while true {
            let connection: PostgresConnection
            do { connection = try usableConnection(in: slot) } catch { return .failure(error) }
            connection.beginCheckout()
            let outcome = Result { try body(connection) }
            connection.endCheckout()
            if connection.isBroken { slot.connection = nil }
            if mayRetry, !connection.hasSentSinceCheckout, case .failure(let error) = outcome,
                error as? PostgresError == .connectionLost(outcomeUnknown: false)
            {
                mayRetry = false
                continue
            }
            return outcome
        }
    }

    /// The slot's connection if it still looks alive, otherwise a new one, unless the backoff says
    /// the server is down.
    private func usableConnection(in slot: PoolSlot) throws -> PostgresConnection {
        if let connection = slot.connection {
            if connection.isAlive() { return connection }
            slot.connection = nil
            logger.debug("Dropping a PostgreSQL connection that was closed while idle")
        }
        guard state.withLockedValue({ $0.backoff.mayConnect(at: .now) }) else { throw PostgresError.unavailable }
        do {
            let connection = try PostgresConnection.open(configuration, metrics: metrics)
            if state.withLockedValue({ $0.backoff.succeeded() }) { logger.notice("PostgreSQL is reachable again") }
            slot.connection = connection
            return connection
        } catch {
            metrics.connectionErrors.increment()
            let startsOutage = state.withLockedValue { $0.backoff.failed(at: .now) }
            logger.log(
                level: startsOutage ? .warning : .debug, "Cannot connect to PostgreSQL",
                metadata: ["error": "\(error)"])
            throw PostgresError.unavailable
        }
    }
}
