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
}
