import CLibPQ

/// A transaction `PostgresConnection.sendTransaction` sent, whose replies are still to be read.
public struct SentTransaction: Sendable {
    /// The caller's statements, between the prologue (BEGIN, and behind a pooler the timeout) and COMMIT.
    let statements: Int
    let prologue: Int
    let start: ContinuousClock.Instant
}

extension PostgresConnection {
    /// Runs `statements` in ONE transaction and one round trip: BEGIN, the statements and COMMIT go
    /// out together in pipeline mode, then the replies are read in order. Returns one result per
    /// statement. When a statement (or the COMMIT) fails, the transaction is rolled back and
    /// `PipelineFailure` names it. A broken connection throws `PostgresError` itself.
    ///
    /// Statements and replies should stay small (kilobytes); pipelines are for a few related writes.
    public func pipelineTransaction(
        _ statements: [PostgresStatement]
    ) throws -> [PostgresResult] {
        try receiveTransaction(sendTransaction(statements))
    }

    /// The first half of `pipelineTransaction`: sends the transaction and returns at once, so the
    /// caller can do other work (answer the transaction before) while the server runs it. Nothing
    /// else may use the connection until `receiveTransaction` has read the replies. With
    /// `answeredBeforeCommit`, the server is asked to send the statements' replies before it
    /// runs the COMMIT (a flush request between them), for `receiveTransaction`'s
    /// `statementsAnswered`; otherwise they come with the COMMIT's, after its WAL flush.
    public func sendTransaction(
        _ statements: [PostgresStatement], answeredBeforeCommit: Bool = false
    ) throws -> SentTransaction {
        guard !isBroken else { throw PostgresError.connectionLost(outcomeUnknown: false) }
        // Prepared once per connection, before pipeline mode (preparing is a round trip of its
        // own): a statement parsed and planned on every batch cost about a seventh of the
        // server's CPU per registration under group commit.
        if usesNamedStatements { try prepareNames(statements) }
        return try withPipelineCleanup {
            guard PQenterPipelineMode(handle) == 1 else {
                throw PostgresError.server(sqlstate: "", message: "libpq could not enter pipeline mode")
            }
            let sent = SentTransaction(
                statements: statements.count, prologue: isBehindPooler ? 2 : 1, start: ContinuousClock.now)
            let prologue: [PostgresStatement] = [("BEGIN", [])] + (isBehindPooler ? [transactionTimeout] : [])
            for statement in prologue { try send(statement, named: false, flushing: false) }
            for statement in statements { try send(statement, named: usesNamedStatements, flushing: false) }
            if answeredBeforeCommit, PQsendFlushRequest(handle) != 1 { throw lost(outcomeUnknown: false) }
            try send(("COMMIT", []), named: false, flushing: false)
            guard PQpipelineSync(handle) == 1 else { throw lost(outcomeUnknown: true) }
            try flush()
            return sent
        }
    }

    /// The second half of `pipelineTransaction`: waits for the replies of `sent` and returns one
    /// result per statement, or throws as `pipelineTransaction` does. `statementsAnswered` gets
    /// the statements' results as soon as they have all succeeded, before the COMMIT's reply (which
    /// may still fail): early only when sent `answeredBeforeCommit`. What it throws is thrown.
    public func receiveTransaction(
        _ sent: SentTransaction, statementsAnswered: (([PostgresResult]) throws -> Void)? = nil
    ) throws -> [PostgresResult] {
        defer { metrics.queryDuration.recordNanoseconds((ContinuousClock.now - sent.start).nanoseconds) }
        return try withPipelineCleanup {
            let callers = sent.prologue..<(sent.prologue + sent.statements)
            var results: [PostgresResult] = []
            results.reserveCapacity(sent.statements)
            var failure: PipelineFailure?
            for position in 0..<(callers.upperBound + 1) {
                if position == callers.upperBound, failure == nil { try statementsAnswered?(results) }
                while let result = try nextResult() {
                    defer { PQclear(result) }
                    switch PQresultStatus(result) {
                    case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                        if callers.contains(position) { results.append(PostgresResult(copying: result)) }
                    case PGRES_PIPELINE_ABORTED:
                        break
                    default:
                        let error = error(from: result)
                        if case .connectionLost = error { throw error }
                        if failure == nil {
                            failure = PipelineFailure(index: max(0, position - sent.prologue), error: error)
                        }
                    }
                }
            }
            guard let sync = try nextResult() else { throw lost(outcomeUnknown: true) }
            let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
            PQclear(sync)
            guard synced, PQexitPipelineMode(handle) == 1 else { throw lost(outcomeUnknown: true) }
            if let failure {
                rollBackIfNeeded()
                throw failure
            }
            return results
        }
    }

    /// Runs independent statements (reads) in one round trip, each as if it ran alone: returns one
    /// outcome per statement, in order, and a statement's failure is only its own. They go out in
    /// one pipeline with one sync; when one fails, the server skips the rest of that pipeline, and
    /// those are sent again in the next one. A broken connection throws.
    public func pipelineEach(
        _ statements: [PostgresStatement]
    ) throws -> [Result<PostgresResult, PostgresError>] {
        try pipelineEach(statements, named: usesNamedStatements)
    }

    /// `pipelineEach`, with the statements prepared (`named`) or sent unnamed. Behind a pooler,
    /// each pipeline starts with the statement timeout for its implicit transaction.
    func pipelineEach(
        _ statements: [PostgresStatement], named: Bool
    ) throws -> [Result<PostgresResult, PostgresError>] {
        guard !isBroken else { throw PostgresError.connectionLost(outcomeUnknown: false) }
        if named { try prepareNames(statements) }
        let start = ContinuousClock.now
        defer { metrics.queryDuration.recordNanoseconds((ContinuousClock.now - start).nanoseconds) }
        return try withPipelineCleanup {
            var outcomes: [Result<PostgresResult, PostgresError>] = []
            outcomes.reserveCapacity(statements.count)
            while outcomes.count < statements.count {
                let first = outcomes.count
                guard PQenterPipelineMode(handle) == 1 else {
                    throw PostgresError.server(sqlstate: "", message: "libpq could not enter pipeline mode")
                }
                if isBehindPooler { try send(transactionTimeout, named: false, flushing: false) }
                for position in first..<statements.count {
                    try send(statements[position], named: named, flushing: false)
                }
                guard PQpipelineSync(handle) == 1 else { throw lost(outcomeUnknown: true) }
                try flush()
                if isBehindPooler { try receiveTransactionTimeout() }
                for _ in first..<statements.count {
                    var outcome: Result<PostgresResult, PostgresError>?
                    while let result = try nextResult() {
                        defer { PQclear(result) }
                        switch PQresultStatus(result) {
                        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                            outcome = outcome ?? .success(PostgresResult(copying: result))
                        case PGRES_PIPELINE_ABORTED:
                            break
                        default:
                            let error = error(from: result)
                            if case .connectionLost = error { throw error }
                            outcome = outcome ?? .failure(error)
                        }
                    }
                    // Skipped after an earlier failure: the next round sends it again.
                    guard let outcome else { continue }
                    outcomes.append(outcome)
                }
                guard let sync = try nextResult() else { throw lost(outcomeUnknown: true) }
                let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
                PQclear(sync)
                guard synced, PQexitPipelineMode(handle) == 1, outcomes.count > first else {
                    throw lost(outcomeUnknown: true)
                }
            }
            return outcomes
        }
    }

    private func prepareNames(_ statements: [PostgresStatement]) throws {
        for statement in statements { _ = try preparedName(for: statement.sql) }
    }

    /// Reads the reply to `transactionTimeout`. Should it fail, the rest of the pipeline is
    /// skipped and unread, so the connection is given up.
    private func receiveTransactionTimeout() throws {
        while let result = try nextResult() {
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_TUPLES_OK else { throw lost(outcomeUnknown: true) }
        }
    }

    /// Runs `body`, which puts the connection in pipeline mode. An error thrown while it is still
    /// in pipeline mode (a message libpq refused to queue, say) leaves messages unsent or replies
    /// unread: the connection cannot be reused, so it is marked broken and replaced.
    private func withPipelineCleanup<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            if PQpipelineStatus(handle) != PQ_PIPELINE_OFF { _ = lost(outcomeUnknown: true) }
            throw error
        }
    }
}
