import Postgres

/// A group-commit batch sent as one transaction (`runTogether`'s first half), whose replies are
/// still to be read: the batch runner sends the next batch before it answers the one before.
struct SentWrites {
    let operations: [WriteOperation]
    let segments: [WriteOperation.Segment]
    let transaction: SentTransaction

    /// Sends `operations` (several, or one) as one transaction: the advisory locks of every user
    /// and token first (see `WriteOperation.lockStatement`), then each segment's statement.
    static func send(_ operations: [WriteOperation], on connection: PostgresConnection) throws -> SentWrites {
        let segments = WriteOperation.Segment.split(operations)
        var statements = segments.map(\.statement)
        if operations.count > 1 {
            let lockNames = PostgresArrayLiteral.format { write in
                for operation in operations { operation.lockNames { write($0, $1) } }
            }
            statements.insert((sql: WriteOperation.lockStatement, parameters: [lockNames]), at: 0)
        }
        return SentWrites(
            operations: operations, segments: segments, transaction: try connection.sendTransaction(statements))
    }

    /// Reads the replies. A batch that lost a race with another writer is re-run one by one here
    /// (see `runTogether`), before anything else is sent on the connection. The outcomes are
    /// decoded by `ReceivedWrites.outcomes`, which needs no connection.
    func receive(on connection: PostgresConnection, retryUntil: ContinuousClock.Instant) throws -> ReceivedWrites {
        do {
            let results = try connection.receiveTransaction(transaction)
            return .results(segments: segments, results: Array(results.dropFirst(results.count - segments.count)))
        } catch let failure as PipelineFailure where failure.error.isRaceWithAnotherWriter && operations.count > 1 {
            return .oneByOne(WriteOperation.oneByOne(operations, on: connection, until: retryUntil))
        } catch let failure as PipelineFailure where operations.count == 1 {
            // One operation alone fails as its statement did, as `WriteOperation.run` would.
            return .oneByOne([.failure(failure.error)])
        }
    }
}

/// A batch's replies, read; decoding them into outcomes needs no connection.
enum ReceivedWrites {
    case results(segments: [WriteOperation.Segment], results: [PostgresResult])
    case oneByOne([Result<WriteOutcome, any Error>])

    /// One outcome per operation, in order.
    func outcomes() throws -> [Result<WriteOutcome, any Error>] {
        switch self {
        case .results(let segments, let results):
            try zip(segments, results).flatMap { segment, result in try segment.outcomes(of: result) }
        case .oneByOne(let outcomes):
            outcomes
        }
    }
}
