import RegistryCrypto

/// Why an APNs client certificate was refused, and which credential field it is about. The
/// messages describe the certificate or key, never their text, so they can be shown to whoever
/// uploaded them.
public enum APNsCertificateError: Error, Sendable, Equatable, CustomStringConvertible {
    case certificateUnreadable
    case keyUnreadable(KeyError)
    case archive(PKCS12Error)
    /// The private key is not the certificate's.
    case keyMismatch
    /// The certificate and key do not make a TLS identity (a failure of the TLS library).
    case unusable

    /// The credential field at fault: `certificate`, `private_key`, `pkcs12` or `pkcs12_password`.
    public var field: String {
        switch self {
        case .certificateUnreadable, .unusable: "certificate"
        case .keyUnreadable, .keyMismatch: "private_key"
        case .archive(.wrongPassword): "pkcs12_password"
        case .archive: "pkcs12"
        }
    }

    public var description: String {
        switch self {
        case .certificateUnreadable:
            "must be the certificate in PEM (-----BEGIN CERTIFICATE-----), then any intermediates"
        case .keyUnreadable(.tooShort(let bits)):
            "is an RSA key of \(bits) bits; at least 2048 are required"
        case .keyUnreadable:
            "must be the certificate's unencrypted private key in PEM (RSA of 2048 bits or more, or EC P-256)"
        case .archive(let error):
            error.description
        case .keyMismatch:
            "is not the private key of this certificate"
        case .unusable:
            "cannot be used as a TLS client certificate with this key"
        }
    }
}
