import HTTPServer
import Logging
import Postgres
import RegistryCore

/// The one table from failures to HTTP problems. Anything it does not know is a 500 whose body
/// says only "Internal error": SQL, libpq text and stack details stay in the log.
enum ProblemMapping {
    /// Seconds a client should wait after a 503 before trying again.
    static let retryAfterSeconds = 1

    static func problem(for error: any Error, logger: Logger) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let errors as ValidationErrors:
            return validation(errors.errors)
        case let error as ValidationError:
            // A single path or query value that failed to parse (user_id, provider, type).
            return validation([error])
        case let error as RegistryError:
            return problem(for: error)
        case let error as PostgresError:
            return problem(for: error, logger: logger)
        default:
            logger.error("internal error", metadata: ["error": "\(String(reflecting: error))"])
            return Problem(status: .internalServerError, title: "Internal error")
        }
    }

    static func validation(_ errors: [ValidationError]) -> Problem {
        Problem(
            status: .unprocessableEntity, title: "Invalid request",
            detail: errors.map { $0.field.isEmpty ? $0.message : "\($0.field): \($0.message)" }.joined(separator: "; "),
            errors: errors.map { FieldError(field: $0.field, message: $0.message) })
    }

    private static func problem(for error: RegistryError) -> Problem {
        switch error {
        case .validation(let errors):
            return validation(errors)
        case .notFound(let what):
            return Problem(status: .notFound, title: "Not found", detail: "no such \(what)")
        case .conflict(let detail):
            return Problem(status: .conflict, title: "Conflict", detail: detail)
        case .unknownProvider(let field, let name):
            return validation([ValidationError(field: field, message: "names no configured provider (\(name))")])
        case .typeNotAccepted(let field, let type, let provider, let service):
            return validation([
                ValidationError(
                    field: field,
                    message:
                        "\(type.rawValue) tokens cannot be sent through provider \(provider), which uses \(service.rawValue)"
                )
            ])
        case .unauthenticated:
            return Problem(
                status: .unauthorized, title: "Unauthorized",
                detail: "send a valid API key as Authorization: Bearer drk_…",
                headers: ["WWW-Authenticate": "Bearer"])
        case .forbidden(let required):
            return Problem(
                status: .forbidden, title: "Forbidden", detail: "this key lacks the \(required.rawValue) scope")
        }
    }

    private static func problem(for error: PostgresError, logger: Logger) -> Problem {
        switch error {
        case .unavailable, .poolTimeout, .queueFull, .connectionLost, .deadlineExceeded, .serializationFailure,
            .deadlockDetected:
            logger.warning("database unavailable", metadata: ["error": "\(error)"])
            return Problem(
                status: .serviceUnavailable, title: "Service unavailable",
                detail: "the database is not answering; the request may not have been applied, retry it",
                headers: ["Retry-After": "\(retryAfterSeconds)"])
        default:
            logger.error("database error", metadata: ["error": "\(error)"])
            return Problem(status: .internalServerError, title: "Internal error")
        }
    }
}
