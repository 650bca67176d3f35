/// Why a PKCS#12 (`.p12`) archive was refused. The messages name what is wrong with the
/// archive, never its contents or the password, so they can be shown to whoever uploaded it.
public enum PKCS12Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not DER PKCS#12 at all.
    case unreadable
    /// Its integrity check fails under the password given (or under none, when none is given).
    case wrongPassword
    /// The password opened it, but a part is encrypted with an algorithm libcrypto lacks.
    case undecryptable
    case noPrivateKey
    /// It holds a key, but none of its certificates is that key's.
    case keyMatchesNoCertificate

    public var description: String {
        switch self {
        case .unreadable: "is not a PKCS#12 (.p12) archive"
        case .wrongPassword: "cannot be opened with this password (pkcs12_password)"
        case .undecryptable: "is encrypted with an algorithm this server cannot read; export it again with AES"
        case .noPrivateKey: "holds no private key; export the certificate together with its key"
        case .keyMatchesNoCertificate: "holds a private key that belongs to none of its certificates"
        }
    }
}
