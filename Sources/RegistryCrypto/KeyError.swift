/// Why a key text was refused. The messages describe the key's kind and size only, never its
/// bytes, so they can be shown to whoever uploaded it.
public enum KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a PEM or DER key libcrypto can read (or a passphrase-protected one, which is refused
    /// rather than prompted for).
    case unreadable
    /// A readable key of another kind than the algorithm needs, e.g. an RSA key for ES256.
    case wrongKind(expected: SignatureAlgorithm)
    /// An RSA key shorter than 2048 bits.
    case tooShort(bits: Int)

    public var description: String {
        switch self {
        case .unreadable:
            "is not a readable unencrypted PKCS#8 key (PEM text or DER)"
        case .wrongKind(.es256):
            "must be an EC P-256 private key (an APNs .p8 file)"
        case .wrongKind(.rs256):
            "must be an RSA private key (the service account's private_key)"
        case .tooShort(let bits):
            "is an RSA key of \(bits) bits; at least \(SignatureAlgorithm.minimumRSABits) are required"
        }
    }
}
