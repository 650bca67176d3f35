import Logging
import Postgres
import PushEngine
import RegistryCore
import Testing

@testable import API
@testable import Store

/// The whole road from a failure to a status: the store's edge turns driver errors into domain
/// outcomes (`StoreFailure`), and the API's one table turns those into statuses. A row per case.
@Suite("Error table")
struct ErrorTableTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let error: any Error
        let status: Int
        var testDescription: String { "\(error) → \(status)" }
    }

    static let rows: [Row] = [
        Row(error: PipelineFailure(index: 1, error: .deadlineExceeded), status: 503),
        Row(error: PipelineFailure(index: 0, error: .serializationFailure), status: 503),
        Row(error: PipelineFailure(index: 2, error: .deadlockDetected), status: 503),
        Row(
            error: PipelineFailure(index: 0, error: .uniqueViolation(constraint: "devices_token_provider_key")),
            status: 409),
        Row(error: PipelineFailure(index: 3, error: .server(sqlstate: "42P01", message: "no table")), status: 500),
        Row(error: PostgresError.deadlineExceeded, status: 503),
        Row(error: PostgresError.serializationFailure, status: 503),
        Row(error: PostgresError.deadlockDetected, status: 503),
        Row(error: PostgresError.connectionLost(outcomeUnknown: true), status: 503),
        Row(error: PostgresError.connectionLost(outcomeUnknown: false), status: 503),
        Row(error: PostgresError.unavailable, status: 503),
        Row(error: PostgresError.poolTimeout, status: 503),
        Row(error: PostgresError.queueFull, status: 503),
        Row(error: PostgresError.uniqueViolation(constraint: nil), status: 409),
        Row(error: PostgresError.foreignKeyViolation(constraint: nil), status: 409),
        Row(error: PostgresError.checkViolation(constraint: "devices_token_check"), status: 500),
        Row(error: PostgresError.decoding("no column token"), status: 500),
        Row(error: PostgresError.server(sqlstate: "XX000", message: "SELECT secret FROM x"), status: 500),
        // A stored row that no longer parses is our fault, not the client's.
        Row(error: ValidationError(field: "token", message: "must be hex"), status: 500),
        Row(error: BatchQueueError.outcomeCount(expected: 2, got: 1), status: 500),
        Row(error: RegistryError.validation([ValidationError(field: "token", message: "must be hex")]), status: 422),
        Row(error: RegistryError.notFound("device"), status: 404),
        Row(error: RegistryError.conflict("in use"), status: 409),
        Row(error: RegistryError.unknownProvider(field: "provider", name: "x"), status: 422),
        Row(
            error: RegistryError.typeNotAccepted(field: "type", type: .fcm, provider: "ios", service: .apns),
            status: 422),
        Row(error: RegistryError.unauthenticated, status: 401),
        Row(error: RegistryError.forbidden(required: .admin), status: 403),
        Row(error: RegistryError.unavailable(reason: "down"), status: 503),
        Row(error: RegistryError.internal(reason: "odd"), status: 500),
    ]

    @Test(arguments: rows)
    func failureAnswersItsStatus(row: Row) {
        let problem = ProblemMapping.problem(
            for: StoreFailure.domain(row.error),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        #expect(problem.status == row.status)
        #expect((problem.headers.first(name: "Retry-After") != nil) == (row.status == 503))
        if row.status == 500 {
            #expect(problem.detail == nil, "an internal error says nothing: \(problem.detail ?? "")")
        }
    }

    /// The API's and the engine's own refusals go through the same table: it alone chooses
    /// their statuses and which carry `Retry-After`.
    static let ownRows: [(error: any Error, status: Int, retryAfter: Bool)] = [
        (APIFailure.missingBody(detail: "send it"), 400, false),
        (APIFailure.emptyJSON, 400, false),
        (APIFailure.malformedJSON(offset: 3), 400, false),
        (APIFailure.tooManyBadKeys(retryAfterSeconds: 7), 429, true),
        (APIFailure.starting, 503, true),
        (APIFailure.notReady(reason: "down"), 503, true),
        (APIFailure.webhookNotConfigured, 503, false),
        (APIFailure.webhookSignatureRefused, 401, false),
        (APIFailure.importLineTooLong(maxBytes: 10), 422, false),
        (APIFailure.importLineUnreadable, 422, false),
        (EngineError.callEventConflict(id: "c1"), 409, false),
        (EngineError.jobQueueFull(queued: 5, limit: 4), 503, true),
    ]

    @Test func ownFailuresAnswerTheirStatus() {
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        for row in Self.ownRows {
            let problem = ProblemMapping.problem(for: row.error, logger: logger)
            #expect(problem.status == row.status, "\(row.error)")
            #expect((problem.headers.first(name: "Retry-After") != nil) == row.retryAfter, "\(row.error)")
        }
    }
}
