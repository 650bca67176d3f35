/// Why a sealed secret could not be opened. Says which key id is missing, never anything secret.
public enum SealError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed
    case unknownKey(id: String)
    case notAuthentic

    public var description: String {
        switch self {
        case .malformed: "the sealed secret is not in the v1 format"
        case .unknownKey(let id): "the secret is sealed under master key \(id), which is not configured"
        case .notAuthentic: "the sealed secret does not authenticate under its master key (tampered or misplaced)"
        }
    }
}
