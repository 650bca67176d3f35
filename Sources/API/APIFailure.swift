/// The API's own refusals, in its terms: HTTP-level failures of a request that neither the stores
/// nor the engine raise. The error table (`ProblemMapping`) gives each its status and text.
enum APIFailure: Error, Equatable {
    /// A route that streams its body got none; `detail` says what to send.
    case missingBody(detail: String)
    /// The body is empty where JSON is needed.
    case emptyJSON
    /// The body is not JSON; `offset` is where it stops parsing.
    case malformedJSON(offset: Int)
    /// This client address presented too many bad API keys; it may try again after `seconds`.
    case tooManyBadKeys(retryAfterSeconds: Int)
    /// The instance is still setting up its database.
    case starting
    /// `/readyz`: the instance cannot serve, for `reason`.
    case notReady(reason: String)
    /// The DialStack webhook has no signing secret configured.
    case webhookNotConfigured
    /// The DialStack webhook's signature is missing, malformed, too old, or does not sign the body.
    case webhookSignatureRefused
    /// An import line longer than `maxBytes`.
    case importLineTooLong(maxBytes: Int)
    /// An import line that failed in a way the line's answer does not explain.
    case importLineUnreadable
}
