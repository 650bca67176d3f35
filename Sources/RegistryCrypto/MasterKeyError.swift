/// Why a configured master key was refused; the message says how to make a good one.
public enum MasterKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    case notBase64URL
    case wrongLength(bytes: Int)

    public var description: String {
        switch self {
        case .notBase64URL:
            "must be 32 random bytes in unpadded base64url (43 characters), e.g. from: openssl rand 32 | basenc --base64url | tr -d ="
        case .wrongLength(let bytes):
            "decodes to \(bytes) bytes; it must be exactly \(AESGCM.keyLength) (43 base64url characters)"
        }
    }
}
