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
    /// Seconds a client should wait after a full push job queue.
    static let jobQueueRetryAfterSeconds = 30

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
        case let failure as APIFailure:
            return problem(for: failure)
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
                headers: ["Retry-After": "\(jobQueueRetryAfterSeconds)"])
        }
    }

    static func problem(for failure: APIFailure) -> Problem {
        switch failure {
        case .missingBody(let detail):
            return Problem(status: .badRequest, title: "Missing body", detail: detail)
        case .emptyJSON:
            return Problem(status: .badRequest, title: "Malformed JSON", detail: "the request needs a JSON body")
        case .malformedJSON(let offset):
            return Problem(
                status: .badRequest, title: "Malformed JSON",
                detail: "the request body is not valid JSON (at byte \(offset))")
        case .tooManyBadKeys(let seconds):
            return Problem(
                status: .tooManyRequests, title: "Too many requests",
                detail: "too many invalid API keys from this address; wait before trying again",
                headers: ["Retry-After": "\(seconds)"])
        case .starting:
            return Problem(
                status: .serviceUnavailable, title: "Starting",
                detail: "the instance is setting up its database; try again shortly",
                headers: ["Retry-After": "\(retryAfterSeconds)"])
        case .notReady(let reason):
            return Problem(
                status: .serviceUnavailable, title: "Not ready", detail: reason,
                headers: ["Retry-After": "\(retryAfterSeconds)"])
        case .webhookNotConfigured:
            return Problem(
                status: .serviceUnavailable, title: "Webhook not configured",
                detail:
                    "set DIALSTACK_WEBHOOK_SECRET to the endpoint's signing secret (several, comma-separated, "
                    + "during a rotation) and restart")
        case .webhookSignatureRefused:
            return Problem(
                status: .unauthorized, title: "Unauthorized",
                detail: "the X-DialStack-Signature header is missing, malformed, too old, or does not sign this body")
        case .importLineTooLong(let maxBytes):
            return Problem(status: .unprocessableEntity, detail: "a line may hold at most \(maxBytes) bytes")
        case .importLineUnreadable:
            return Problem(status: .unprocessableEntity)
        }
    }

    private static func internalError(_ reason: String, logger: Logger) -> Problem {
        logger.error("internal error", metadata: ["error": "\(reason)"])
        return Problem(status: .internalServerError, title: "Internal error")
    }
}
