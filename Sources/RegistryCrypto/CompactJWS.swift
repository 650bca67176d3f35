import Encodings
import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1): `header.payload.signature`, each part
/// base64url without padding.
public struct CompactJWS: Sendable {
    public let header: JOSEHeader
    public let payload: [UInt8]
    private let signingInput: [UInt8]
    private let signature: [UInt8]

    /// Splits and decodes `text`; nil unless it has exactly three canonical base64url parts and
    /// a JSON object header with a string `alg`. Says nothing about the signature yet.
    public init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])),
            let payload = Base64URL.decode(String(parts[1])), let signature = Base64URL.decode(String(parts[2])),
            let header = try? JSONDecoder().decode(JOSEHeader.self, from: Data(headerBytes))
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    }

    /// True only when the header's `alg` is the key's own algorithm and the signature verifies:
    /// a token must never choose how it is checked (the "alg confusion" attack).
    public func isSigned(by key: VerifyingKey) -> Bool {
        header.algorithm == key.algorithm.rawValue && key.isValidSignature(signature, for: signingInput)
    }

    /// The payload decoded as JSON, or nil when it does not fit `type`.
    public func payload<Claims: Decodable>(as type: Claims.Type) -> Claims? {
        try? JSONDecoder().decode(type, from: Data(payload))
    }

    /// Signs the exact `header` and `payload` bytes (RFC 7515 §5.1) and returns the compact form.
    /// The caller is responsible for `header` naming `key.algorithm`; `JSONWebToken` does that.
    public static func sign(header: [UInt8], payload: [UInt8], with key: SigningKey) throws -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(try key.sign(Array(signingInput.utf8)))
    }
}
