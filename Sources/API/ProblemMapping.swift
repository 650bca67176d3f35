import HTTPServer
import Logging
import PushEngine
import RegistryCore

/// The one table from failures to HTTP problems. The stores answer in domain terms
/// (`RegistryError`, see `StoreFailure`), and every case of it has its status here, with no
/// default. Anything else is a 500 whose body says only "Internal error": SQL, libpq text and
/// stack details stay in the log.
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
            return problem(for: error, logger: logger)
        case let error as EngineError:
            return problem(for: error)
        default:
            return internalError(String(reflecting: error), logger: logger)
        }
    }

    static func validation(_ errors: [ValidationError]) -> Problem {
        Problem(
            status: .unprocessableEntity, title: "Invalid request",
            detail: errors.map { $0.field.isEmpty ? $0.message : "\($0.field): \($0.message)" }.joined(separator: "; "),
            errors: errors.map { FieldError(field: $0.field, message: $0.message) })
    }

    static func problem(for error: RegistryError, logger: Logger) -> Problem {
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
        case .unavailable(let reason):
            logger.warning("database unavailable", metadata: ["error": "\(reason)"])
            return Problem(
                status: .serviceUnavailable, title: "Service unavailable",
                detail: "the database is not answering; the request may not have been applied, retry it",
                headers: ["Retry-After": "\(retryAfterSeconds)"])
        case .internal(let reason):
            return internalError(reason, logger: logger)
        }
    }

    static func problem(for error: EngineError) -> Problem {
        switch error {
        case .callEventConflict(let id):
            return Problem(
                status: .conflict, title: "Conflict",
                detail: "call event \(id) was posted before with a different body; use a new id for a new event",
                errors: [FieldError(field: "id", message: "was used for a different call event within the last 24 h")])
        case .jobQueueFull(let queued, let limit):
            return Problem(
                status: .serviceUnavailable, title: "Push job queue full",
                detail: "\(queued) devices are queued in push jobs; at most \(limit) may be. Retry later.",
                headers: ["Retry-After": "\(PushJobIntake.retryAfterSeconds)"])
        }
    }

    private static func internalError(_ reason: String, logger: Logger) -> Problem {
        logger.error("internal error", metadata: ["error": "\(reason)"])
        return Problem(status: .internalServerError, title: "Internal error")
    }
}
