/// Why a DialStack webhook's signature was refused. The API answers every case with the same
/// 401; the case is for the log line.
public enum DialStackSignatureFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `X-DialStack-Signature` header.
    case missingHeader
    /// The header is not `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`.
    case malformedHeader(String)
    /// `t` is more than 5 minutes before or after now: a replay, or a badly wrong clock.
    case timestampOutsideTolerance
    /// No `v1` is the HMAC of the body under any configured secret.
    case noMatchingSignature

    public var description: String {
        switch self {
        case .missingHeader: "no X-DialStack-Signature header"
        case .malformedHeader(let why): "malformed X-DialStack-Signature header: \(why)"
        case .timestampOutsideTolerance: "X-DialStack-Signature timestamp is more than 5 minutes from now"
        case .noMatchingSignature: "no X-DialStack-Signature v1 value matches the body under any secret"
        }
    }
}
