import Postgres
import RegistryCore

/// A write that can share a transaction with other requests' writes (group commit).
enum WriteOperation: Sendable {
    case register(DeviceRegistration, userDeviceCap: Int)
    /// Logout of one device: only while the token belongs to `user`.
    case unregister(user: UserID, token: String, provider: ProviderName?)
    /// A ring's claim of its event id, or its results.
    case callEvent(CallEventWrite)

    var statement: PostgresStatement {
        switch self {
        case .register(let registration, let cap):
            (RegisterStatement.sql, RegisterStatement.parameters(registration, userDeviceCap: cap))
        case .unregister(let user, let token, let provider):
            (
                """
                DELETE FROM devices
                 WHERE \(TokenLookup.condition(1)) AND user_id = $3 AND ($4::text IS NULL OR provider = $4)
                """,
                TokenLookup(token).parameters + [user.value, provider?.value]
            )
        case .callEvent(let write): write.statement
        }
    }

    /// Reads this operation's answer out of its statement's result.
    func outcome(of result: PostgresResult) throws -> WriteOutcome {
        switch self {
        case .register(let registration, _): .registered(try RegisterStatement.outcome(of: result, for: registration))
        case .unregister: .unregistered(result.affectedRows > 0)
        case .callEvent(let write): .callEvent(try write.outcome(of: result))
        }
    }

    /// The user and the token this operation writes, as advisory-lock keys' sources: each name
    /// is `prefix` followed by `name`, written into the lock statement's literal as it is (a
    /// String per token name was one allocation per registration).
    func lockNames(_ write: (_ prefix: StaticString, _ name: String) -> Void) {
        switch self {
        case .register(let registration, _):
            write("", registration.userID.value)
            write("token:", registration.token.value)
        case .unregister(let user, let token, _):
            write("", user.value)
            write("token:", token.lowercased())
        case .callEvent(let event): write("", event.lockName)
        }
    }

    /// Takes the advisory locks of every user and token in a batch, all in one statement and in
    /// one global order, before any row is touched. Two batches that share a user or a token
    /// then queue one behind the other instead of deadlocking on locks taken item by item in
    /// arrival order. `register_device()` takes the same user key, re-entrantly.
    static let lockStatement = """
        SELECT count(pg_advisory_xact_lock(k)) FROM (
            SELECT DISTINCT hashtextextended(n, 0) AS k FROM unnest($1::text[]) n ORDER BY 1) keys
        """

    /// Runs `operations` as one transaction in one round trip, each answered in order. Runs of
    /// registrations go to `register_devices()` as one statement each.
    ///
    /// When the transaction deadlocks with another batch or loses a unique-index race, the items
    /// are re-run one by one so each still gets its own outcome, until `retryUntil`; those not
    /// reached by then fail as `.unavailable`, unsent. Any other failure is every item's: a
    /// statement timeout means the database is slow, and re-running each item alone would hold
    /// the writes queued behind the batch for up to one timeout per item. A lost connection
    /// throws: those outcomes are unknown.
    static func runTogether(
        _ operations: [WriteOperation], on connection: PostgresConnection, retryUntil: ContinuousClock.Instant
    ) throws -> [Result<WriteOutcome, any Error>] {
        if operations.count == 1 { return [Result { try operations[0].run(on: connection) }] }
        return try SentWrites.send(operations, on: connection).receive(on: connection, retryUntil: retryUntil)
            .outcomes()
    }

    /// Runs each operation alone, in order, until `deadline`; those not started by then fail as
    /// `.unavailable` without being sent.
    static func oneByOne(
        _ operations: [WriteOperation], on connection: PostgresConnection, until deadline: ContinuousClock.Instant
    ) -> [Result<WriteOutcome, any Error>] {
        operations.map { operation in
            guard ContinuousClock.now < deadline else {
                return .failure(RegistryError.unavailable(reason: "a batch re-run one by one ran out of time"))
            }
            return Result { try operation.run(on: connection) }
        }
    }

    /// A statement of a batch: a run of registrations (same cap) or one other operation.
    enum Segment {
        case registrations([DeviceRegistration], userDeviceCap: Int)
        case single(WriteOperation)

        /// Cuts `operations` in arrival order; the statements run in that order.
        static func split(_ operations: [WriteOperation]) -> [Segment] {
            var segments: [Segment] = []
            var run: [DeviceRegistration] = []
            var runCap = 0
            for operation in operations {
                if case .register(let registration, let cap) = operation, run.isEmpty || cap == runCap {
                    run.append(registration)
                    runCap = cap
                    continue
                }
                close(run, cap: runCap, into: &segments)
                run = []
                if case .register(let registration, let cap) = operation {
                    run = [registration]
                    runCap = cap
                } else {
                    segments.append(.single(operation))
                }
            }
            close(run, cap: runCap, into: &segments)
            return segments
        }

        /// A run of one is an ordinary single statement: `register_device()` alone.
        private static func close(_ run: [DeviceRegistration], cap: Int, into segments: inout [Segment]) {
            switch run.count {
            case 0: break
            case 1: segments.append(.single(.register(run[0], userDeviceCap: cap)))
            default: segments.append(.registrations(run, userDeviceCap: cap))
            }
        }

        var statement: PostgresStatement {
            switch self {
            case .registrations(let run, let cap):
                (RegisterStatement.batchSQL, RegisterStatement.batchParameters(run, userDeviceCap: cap))
            case .single(let operation):
                operation.statement
            }
        }

        func outcomes(of result: PostgresResult) throws -> [Result<WriteOutcome, any Error>] {
            switch self {
            case .registrations(let run, _):
                try RegisterStatement.outcomes(of: result, for: run).map { $0.map(WriteOutcome.registered) }
            case .single(let operation):
                [Result { try operation.outcome(of: result) }]
            }
        }
    }

    /// Runs this operation alone, in its own transaction.
    func run(on connection: PostgresConnection) throws -> WriteOutcome {
        let statement = statement
        return try outcome(of: connection.queryPrepared(statement.sql, statement.parameters))
    }
}

enum WriteOutcome: Sendable {
    case registered(RegistrationOutcome)
    case unregistered(Bool)
    case callEvent(CallEventWriteOutcome)

    var registration: RegistrationOutcome {
        guard case .registered(let outcome) = self else {
            preconditionFailure("a registration answers with a registration")
        }
        return outcome
    }

    var unregistered: Bool {
        guard case .unregistered(let deleted) = self else { preconditionFailure("an unregistration answers with one") }
        return deleted
    }

    var callEvent: CallEventWriteOutcome {
        guard case .callEvent(let outcome) = self else { preconditionFailure("a call event write answers with one") }
        return outcome
    }
}

extension PostgresError {
    /// A batch failed because of another writer, not because the database is slow or gone: run
    /// alone, each item is likely to succeed.
    var isRaceWithAnotherWriter: Bool {
        switch self {
        case .deadlockDetected, .uniqueViolation: true
        default: false
        }
    }
}
