/// What can go wrong talking to PostgreSQL, sorted by what a caller does about it.
public enum PostgresError: Error, Sendable, Equatable {
    /// 23505
    case uniqueViolation(constraint: String?)
    /// 23514
    case checkViolation(constraint: String?)
    /// 23503
    case foreignKeyViolation(constraint: String?)
    /// 40001: retry the whole transaction.
    case serializationFailure
    /// 40P01: retry the whole transaction.
    case deadlockDetected
    /// 57014: `statement_timeout` (or a cancel) stopped the statement; its transaction is rolled back.
    case deadlineExceeded
    /// The connection broke or stopped answering. `outcomeUnknown` is true when it happened after a
    /// statement was sent: the statement may have been committed, so this is never a success.
    case connectionLost(outcomeUnknown: Bool)
    /// No connection could be opened: server down, refusing, starting up, or authentication failed.
    case unavailable
    /// Every connection stayed busy for `poolWaitTimeout`.
    case poolTimeout
    /// `maxWaiting` callers already wait; refused at once.
    case queueFull
    /// A row did not hold what the caller asked for.
    case decoding(String)
    /// Any other server error. `message` is for logs only, never for HTTP responses.
    case server(sqlstate: String, message: String)

    /// Whether trying again later may succeed. The API answers 503 with Retry-After for these.
    public var isTransient: Bool {
        switch self {
        case .deadlineExceeded, .connectionLost, .unavailable, .poolTimeout, .queueFull, .serializationFailure,
            .deadlockDetected:
            return true
        case .uniqueViolation, .checkViolation, .foreignKeyViolation, .decoding, .server:
            return false
        }
    }

    /// Maps a server error reported for a statement that was sent.
    init(sqlstate: String, constraint: String?, message: String) {
        switch sqlstate {
        case "23505": self = .uniqueViolation(constraint: constraint)
        case "23514": self = .checkViolation(constraint: constraint)
        case "23503": self = .foreignKeyViolation(constraint: constraint)
        case "40001": self = .serializationFailure
        case "40P01": self = .deadlockDetected
        case "57014": self = .deadlineExceeded
        case _ where Self.endsSession(sqlstate): self = .connectionLost(outcomeUnknown: true)
        default: self = .server(sqlstate: sqlstate, message: message)
        }
    }

    /// Connection exceptions (class 08) and administrator shutdowns: the server ends the session.
    static func endsSession(_ sqlstate: String) -> Bool {
        sqlstate.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlstate)
    }
}
