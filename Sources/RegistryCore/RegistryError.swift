/// The domain's failures. The API maps each case to an HTTP status in exactly one table; anything
/// thrown that is not a `RegistryError` is an internal error and must not leak its text.
public enum RegistryError: Error, Sendable, Equatable {
    /// The input was malformed; 422 with one `{field, message}` per problem.
    case validation([ValidationError])
    /// The named thing (e.g. "device", "provider \"ios\"") does not exist; 404.
    case notFound(String)
    /// The request contradicts stored state, e.g. creating a provider that exists, or deleting
    /// a provider that still has devices; 409. The string says what conflicts.
    case conflict(String)
    /// A request named a push provider that is not configured. `field` is where the name came
    /// from (`provider`, or `contact` for a SIP registration); 422.
    case unknownProvider(field: String, name: String)
    /// The provider exists but sends through another service (an FCM token to an APNs provider);
    /// 422 on `field`.
    case typeNotAccepted(field: String, type: TokenType, provider: String, service: PushService)
    /// No API key, or a key that does not match a stored one; 401. Deliberately carries no detail
    /// so a caller cannot tell "unknown key" from "malformed key".
    case unauthenticated
    /// The key is valid but lacks the scope the route needs; 403.
    case forbidden(required: APIKeyScope)
    /// The database did not answer in time, is down, is overloaded, or gave up on the transaction
    /// (deadlock, serialization failure); nothing was committed, or it is unknown whether it was.
    /// Trying again later may succeed; 503 with Retry-After. The reason is for logs only.
    case unavailable(reason: String)
    /// A fault of ours, not the client's: a stored row that no longer parses, an answer the code
    /// did not expect. 500, logged; the reason never reaches the client.
    case `internal`(reason: String)

    /// Wraps collected validation errors so handlers can `throw RegistryError(errors)`.
    public init(_ errors: ValidationErrors) {
        self = .validation(errors.errors)
    }

    /// A stable machine-readable code, suitable for a problem+json `type` suffix or a metric label.
    public var code: String {
        switch self {
        case .validation: "validation_failed"
        case .notFound: "not_found"
        case .conflict: "conflict"
        case .unknownProvider: "unknown_provider"
        case .typeNotAccepted: "type_not_accepted"
        case .unauthenticated: "unauthenticated"
        case .forbidden: "forbidden"
        case .unavailable: "unavailable"
        case .internal: "internal"
        }
    }

    /// A human sentence for problem+json `detail`. Safe to show clients: it only echoes what the
    /// client sent or names a scope.
    public var detail: String {
        switch self {
        case .validation(let errors):
            errors.count == 1 ? "The request has 1 invalid field." : "The request has \(errors.count) invalid fields."
        case .notFound(let what): "\(what) not found."
        case .conflict(let what): what
        case .unknownProvider(_, let name): "No push provider named \"\(name)\" is configured."
        case .typeNotAccepted(_, let type, let provider, let service):
            "Provider \"\(provider)\" sends through \(service.rawValue) and does not accept \(type.rawValue) tokens."
        case .unauthenticated: "A valid API key is required."
        case .forbidden(let required): "The API key lacks the \(required.rawValue) scope."
        case .unavailable: "The database is not answering; the request may not have been applied. Retry it."
        case .internal: "Internal error."
        }
    }

    /// The errors as `{field, message}` pairs, for the problem+json `errors` member. Field-level
    /// cases become a single entry so clients can handle every 422 alike.
    public var fieldErrors: [ValidationError] {
        switch self {
        case .validation(let errors): errors
        case .unknownProvider(let field, _), .typeNotAccepted(let field, _, _, _):
            [ValidationError(field: field, message: detail)]
        default: []
        }
    }
}
