/// The JWS algorithms the push services use (RFC 7518 §3): ES256 for the APNs provider token
/// (an EC P-256 key), RS256 for Google's service-account assertion (an RSA key).
public enum SignatureAlgorithm: String, Sendable, Hashable, CaseIterable {
    case es256 = "ES256"
    case rs256 = "RS256"

    /// RSA keys shorter than this are refused: RFC 7518 §3.3 requires 2048 bits for RS256.
    static let minimumRSABits: Int32 = 2048
}
