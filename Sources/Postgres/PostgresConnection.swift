import CLibPQ
import Foundation

/// One libpq session. Used by exactly one caller at a time, only inside `PostgresPool.withConnection`,
/// on a pool thread (never an event loop). Not Sendable.
///
/// The socket is non-blocking and every wait goes through `Socket.wait` with a timeout: a reply
/// that does not arrive within `statement_timeout` plus one second means the server or network is
/// stuck, and the call throws `.connectionLost(outcomeUnknown: true)` instead of hanging.
public final class PostgresConnection {
    let handle: OpaquePointer
    let metrics: PoolMetrics
    private let statementTimeout: Duration
    /// Longest silence while waiting for the server; nil waits forever (migrations).
    var replyTimeout: Duration?
    private var preparedNames: [String: String] = [:]
    /// Whether a connection pooler (PgBouncer) stands between this session and PostgreSQL, so that
    /// consecutive transactions may run on different server sessions; see `startSession`.
    public private(set) var isBehindPooler = false
    /// Whether `queryPrepared` and the pipelines use named prepared statements.
    private(set) var usesNamedStatements = true
    /// Set once the session is known to be unusable; the pool then closes it instead of reusing it.
    public private(set) var isBroken = false
    /// Whether any statement may have reached the server since `beginCheckout`. The pool retries a
    /// unit of work on a fresh connection only when none can have.
    private(set) var hasSentSinceCheckout = false

    private init(handle: OpaquePointer, metrics: PoolMetrics, statementTimeout: Duration) {
        self.handle = handle
        self.metrics = metrics
        self.statementTimeout = statementTimeout
        self.replyTimeout = Self.replyTimeout(for: statementTimeout)
    }

    /// A zero statement timeout means none, on the server and here.
    private static func replyTimeout(for statementTimeout: Duration) -> Duration? {
        statementTimeout > .zero ? statementTimeout + .seconds(1) : nil
    }

    deinit { PQfinish(handle) }

    /// Opens a session within `connectTimeout`, in UTC and with the statement timeout set.
    static func open(_ configuration: PostgresConfiguration, metrics: PoolMetrics) throws -> PostgresConnection {
        let deadline = ContinuousClock.now + configuration.connectTimeout
        // Before dbname, so that the same keyword in the URI wins: libpq keeps the last value given.
        let parameters = [
            ("application_name", configuration.applicationName),
            ("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
            ("dbname", configuration.url),
        ]
        let started = withCStrings(parameters.map(\.0) + [nil]) { keywords in
            withCStrings(parameters.map(\.1) + [nil]) { values in PQconnectStartParams(keywords, values, 1) }
        }
        guard let started else { throw ConnectFailure(description: "libpq could not allocate a connection") }
        let connection = PostgresConnection(
            handle: started, metrics: metrics, statementTimeout: configuration.statementTimeout)
        // Server notices (and the FATAL message of a session killed while idle) would go to stderr.
        PQsetNoticeProcessor(started, { _, _ in }, nil)
        try connection.finishConnecting(before: deadline)
        do {
            try connection.startSession(preparedStatements: configuration.preparedStatements)
        } catch {
            throw ConnectFailure(description: "setting up the session failed: \(error)")
        }
        return connection
    }

    /// Finds out whether a pooler stands in between, then sets the session up. PostgreSQL tells
    /// a client its backend's process id at startup (for cancelling); a pooler answers the startup
    /// itself with a key of its own (PgBouncer draws it at random per client), so the id libpq was
    /// told differs from the `pg_backend_pid()` of whichever server session runs the query. That
    /// holds for any pool mode and any pooler version, unlike `server_version` or
    /// `application_name`, which PgBouncer passes through from the server.
    ///
    /// Behind a pooler only TimeZone is set once (PgBouncer carries the settings the server
    /// reports, TimeZone among them, to whichever session serves the client); the statement
    /// timeout is set in every transaction instead (`transactionTimeout`).
    private func startSession(preparedStatements: PreparedStatements) throws {
        let serverPID = try query("SELECT pg_backend_pid() AS pid").rows[0].int("pid")
        isBehindPooler = serverPID != Int(PQbackendPID(handle))
        usesNamedStatements = preparedStatements == .on || (preparedStatements == .auto && !isBehindPooler)
        try execute(
            isBehindPooler
                ? "SET TimeZone TO 'UTC'"
                : "SET TimeZone TO 'UTC'; SET statement_timeout TO \(statementTimeout.roundedUpMilliseconds)")
    }

    /// Behind a pooler, the statement timeout for the current transaction only (the implicit one of
    /// a pipeline included): a session setting would stay on a server session other clients get.
    var transactionTimeout: PostgresStatement {
        ("SELECT set_config('statement_timeout', $1, true)", [String(statementTimeout.roundedUpMilliseconds)])
    }

    private func finishConnecting(before deadline: ContinuousClock.Instant) throws {
        var state = PQstatus(handle) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING
        while state != PGRES_POLLING_OK {
            guard state == PGRES_POLLING_READING || state == PGRES_POLLING_WRITING else {
                throw ConnectFailure(description: errorMessage)
            }
            let remaining = deadline - .now
            guard remaining > .zero,
                Socket.wait(PQsocket(handle), for: state == PGRES_POLLING_READING ? .read : .write, timeout: remaining)
                    != nil
            else { throw ConnectFailure(description: "no answer within the connect timeout") }
            state = PQconnectPoll(handle)
        }
        guard PQsetnonblocking(handle, 1) == 0 else { throw ConnectFailure(description: errorMessage) }
    }

    private var errorMessage: String {
        String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Statements

    /// One statement with `$n` parameters sent as text (extended protocol).
    public func query(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> PostgresResult {
        try run((sql, parameters), named: false)
    }

    /// Like `query`, but parses and plans `sql` only once per connection (cached by its text),
    /// unless named prepared statements are off (`PreparedStatements`).
    public func queryPrepared(_ sql: String, _ parameters: [(any PostgresEncodable)?] = []) throws -> PostgresResult {
        try run((sql, parameters), named: usesNamedStatements)
    }

    private func run(_ statement: PostgresStatement, named: Bool) throws -> PostgresResult {
        // Outside a transaction behind a pooler, the statement shares a pipeline's implicit
        // transaction with its timeout: still one round trip.
        if isBehindPooler && PQtransactionStatus(handle) == PQTRANS_IDLE {
            return try pipelineEach([statement], named: named)[0].get()
        }
        return try timed {
            try send(statement, named: named)
            return try collectResults()
        }
    }

    /// Simple protocol, no parameters; `sql` may hold several statements (migrations). The first
    /// failing statement's error is thrown.
    public func execute(_ sql: String) throws {
        _ = try timed {
            try send([]) { _ in PQsendQuery(handle, sql) }
            return try collectResults()
        }
    }

    /// BEGIN, `body`, COMMIT. Rolls back and rethrows when `body` throws. A COMMIT that fails
    /// throws, and so does committing after `body` swallowed a statement's error (the server would
    /// silently roll back). Not nestable.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try execute(
            isBehindPooler ? "BEGIN; SET LOCAL statement_timeout TO \(statementTimeout.roundedUpMilliseconds)" : "BEGIN"
        )
        do {
            let value = try body(self)
            if PQtransactionStatus(handle) == PQTRANS_INERROR {
                throw PostgresError.server(
                    sqlstate: "25P02", message: "a statement failed inside the transaction; it was rolled back")
            }
            _ = try query("COMMIT")
            return value
        } catch {
            rollBackIfNeeded()
            throw error
        }
    }

    /// The name `sql` is prepared under on this connection, preparing it the first time. Not in
    /// pipeline mode: preparing waits for its own reply.
    func preparedName(for sql: String) throws -> String {
        if let name = preparedNames[sql] { return name }
        let name = "s\(preparedNames.count + 1)"
        try send([]) { _ in PQsendPrepare(handle, name, sql, 0, nil) }
        _ = try collectResults()
        preparedNames[sql] = name
        return name
    }

    private func timed<T>(_ work: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer { metrics.queryDuration.recordNanoseconds((ContinuousClock.now - start).nanoseconds) }
        return try work()
    }

    // MARK: Wire

    /// Queues one statement, as its prepared name when `named` (preparing it first, so not in
    /// pipeline mode for a statement new to this connection) or unnamed.
    func send(_ statement: PostgresStatement, named: Bool, flushing: Bool = true) throws {
        let count = Int32(statement.parameters.count)
        if named {
            let name = try preparedName(for: statement.sql)
            try send(statement.parameters, flushing: flushing) {
                PQsendQueryPrepared(handle, name, count, $0, nil, nil, 0)
            }
        } else {
            try send(statement.parameters, flushing: flushing) {
                PQsendQueryParams(handle, statement.sql, count, nil, $0, nil, nil, 0)
            }
        }
    }

    /// Queues a message with the parameters as C strings and flushes it (unless `flushing` is false:
    /// a pipeline flushes once, after its last message). Throws
    /// `.connectionLost(outcomeUnknown: false)` when libpq refused to queue it.
    func send(
        _ parameters: [(any PostgresEncodable)?], flushing: Bool = true,
        _ submit: (UnsafePointer<UnsafePointer<CChar>?>?) -> Int32
    ) throws {
        guard !isBroken else { throw PostgresError.connectionLost(outcomeUnknown: false) }
        let queued = withCStrings(parameters.map { $0?.postgresText }) { submit($0) }
        guard queued == 1 else {
            if PQstatus(handle) == CONNECTION_BAD { throw lost(outcomeUnknown: false) }
            throw PostgresError.server(sqlstate: "", message: "libpq refused the statement: \(errorMessage)")
        }
        // From here on the server may receive it, even if flushing fails or times out.
        hasSentSinceCheckout = true
        if flushing { try flush() }
    }

    /// Waits for write space; reads meanwhile, as libpq asks, so a server blocked on writing its
    /// replies to us cannot deadlock with us writing to it.
    func flush() throws {
        while true {
            switch PQflush(handle) {
            case 0:
                return
            case 1:
                guard let ready = Socket.wait(PQsocket(handle), for: [.read, .write], timeout: replyTimeout) else {
                    throw lost(outcomeUnknown: true)
                }
                if ready.contains(.read), PQconsumeInput(handle) == 0 { throw lost(outcomeUnknown: true) }
            default:
                // Part of the queue may have gone out, a pipeline's COMMIT included.
                throw lost(outcomeUnknown: true)
            }
        }
    }

    /// The next result of what was sent, or nil at the end of one statement's results.
    func nextResult() throws -> OpaquePointer? {
        while PQisBusy(handle) == 1 {
            guard Socket.wait(PQsocket(handle), for: .read, timeout: replyTimeout) != nil,
                PQconsumeInput(handle) == 1
            else { throw lost(outcomeUnknown: true) }
        }
        return PQgetResult(handle)
    }

    /// Reads every result of what was sent. The first error wins; otherwise the last result is
    /// returned (`execute` may run several statements).
    private func collectResults() throws -> PostgresResult {
        var outcome: Result<PostgresResult, PostgresError> = .success(PostgresResult(rows: [], affectedRows: 0))
        var failed = false
        while let result = try nextResult() {
            defer { PQclear(result) }
            guard !failed else { continue }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                outcome = .success(PostgresResult(copying: result))
            case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
                // libpq would hand out COPY results forever; the session is stuck in COPY mode.
                markBroken()
                throw PostgresError.server(sqlstate: "0A000", message: "COPY is not supported")
            default:
                outcome = .failure(error(from: result))
                failed = true
            }
        }
        if PQstatus(handle) == CONNECTION_BAD { markBroken() }
        return try outcome.get()
    }

    /// Maps a failed result. libpq's own errors carry no SQLSTATE: they mean the connection failed.
    func error(from result: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        guard let sqlstate = field("C") else { return lost(outcomeUnknown: true) }
        let error = PostgresError(
            sqlstate: sqlstate, constraint: field("n"),
            message: field("M") ?? String(cString: PQresultErrorMessage(result)))
        if case .connectionLost = error { markBroken() }
        return error
    }

    func lost(outcomeUnknown: Bool) -> PostgresError {
        markBroken()
        return .connectionLost(outcomeUnknown: outcomeUnknown)
    }

    private func markBroken() {
        guard !isBroken else { return }
        isBroken = true
        metrics.connectionErrors.increment()
    }

    // MARK: Pool hooks

    /// Whether an idle session still looks usable. A server that ends an idle session (restart,
    /// `pg_terminate_backend`) sends a FATAL message and closes the socket, so it turns readable.
    func isAlive() -> Bool {
        for _ in 0..<3 where !isBroken {
            guard PQstatus(handle) == CONNECTION_OK else { break }
            guard Socket.wait(PQsocket(handle), for: .read, timeout: .zero) != nil else { return true }
            guard PQconsumeInput(handle) == 1 else { break }
        }
        markBroken()
        return false
    }

    func beginCheckout() { hasSentSinceCheckout = false }

    /// The caller is done: a transaction it left open is rolled back so the next one starts clean.
    func endCheckout() { rollBackIfNeeded() }

    func rollBackIfNeeded() {
        guard !isBroken, PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        do { _ = try query("ROLLBACK") } catch { markBroken() }
        if PQtransactionStatus(handle) != PQTRANS_IDLE { markBroken() }
    }

    /// Runs `body` with no statement timeout on either side, for migrations and the lock they wait on.
    func withoutTimeouts<T>(_ body: () throws -> T) throws -> T {
        try execute("SET statement_timeout TO 0")
        replyTimeout = nil
        defer {
            replyTimeout = Self.replyTimeout(for: statementTimeout)
            do { try execute("SET statement_timeout TO \(statementTimeout.roundedUpMilliseconds)") } catch {
                markBroken()
            }
        }
        return try body()
    }
}
