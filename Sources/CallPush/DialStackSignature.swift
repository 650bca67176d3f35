import Encodings
import Foundation
import RegistryCore
import RegistryCrypto

/// Checks `X-DialStack-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
/// against `DIALSTACK_WEBHOOK_SECRET`.
///
/// During a rotation the variable holds several comma-separated secrets, and DialStack may put
/// several `v1` values in one header: a signature counts when any `v1` matches under any secret.
/// Comparison is constant-time. A `t` more than 5 minutes from now, either way, is refused, so a
/// captured request cannot be replayed later. Other keys in the header (a future `v2`) are
/// ignored.
public struct DialStackSignature: Sendable, CustomStringConvertible {
    public static let headerName = "X-DialStack-Signature"
    public static let tolerance: TimeInterval = 300

    private let secrets: [[UInt8]]

    /// `configured` is the variable's value: one secret, or several separated by commas; spaces
    /// around each are dropped. Throws when it holds no secret or an empty one.
    public init(secrets configured: String) throws(ValidationError) {
        let secrets = configured.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard secrets.allSatisfy({ !$0.isEmpty }) else {
            throw ValidationError(
                field: "DIALSTACK_WEBHOOK_SECRET", message: "must hold one secret, or several separated by commas")
        }
        self.secrets = secrets.map { Array($0.utf8) }
    }

    /// Returns when the header signs `body` at a time within 5 minutes of `now`; throws why not.
    public func verify(header: String?, body: [UInt8], now: Date) throws(DialStackSignatureFailure) {
        guard let header else { throw .missingHeader }
        let (timestamp, signatures) = try Self.parse(header)
        guard let seconds = Int64(timestamp), abs(now.timeIntervalSince1970 - Double(seconds)) <= Self.tolerance
        else { throw .timestampOutsideTolerance }
        let signed = Array("\(timestamp).".utf8) + body
        let expected = secrets.map { HMAC.sha256(key: $0, data: signed) }
        let matched = signatures.contains { signature in
            expected.contains { ConstantTime.equals($0, signature) }
        }
        guard matched else { throw .noMatchingSignature }
    }

    /// The `t` text exactly as sent (it is what was signed) and the decodable `v1` values.
    private static func parse(_ header: String) throws(DialStackSignatureFailure) -> (String, [[UInt8]]) {
        var timestamp: String?
        var signatures: [[UInt8]] = []
        var sawV1 = false
        for part in header.split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let equals = pair.firstIndex(of: "=") else { throw .malformedHeader("\"\(pair)\" is not key=value") }
            let key = pair[..<equals]
            let value = String(pair[pair.index(after: equals)...])
            switch key {
            case "t":
                guard timestamp == nil else { throw .malformedHeader("t appears more than once") }
                guard !value.isEmpty, value.utf8.count <= 12, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                    throw .malformedHeader("t must be Unix seconds")
                }
                timestamp = value
            case "v1":
                sawV1 = true
                // A value that is not 64 hex digits cannot match; it is skipped, not fatal, so one
                // odd entry does not hide a good one beside it.
                if let bytes = Hex.decode(value), bytes.count == SHA256.digestLength { signatures.append(bytes) }
            default:
                continue
            }
        }
        guard let timestamp else { throw .malformedHeader("t is missing") }
        guard sawV1 else { throw .malformedHeader("v1 is missing") }
        return (timestamp, signatures)
    }

    public var description: String { "DialStackSignature(\(secrets.count) secret(s), redacted)" }
}
