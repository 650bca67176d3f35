import CCrypto
import Encodings

/// A public key that checks JWS signatures of one algorithm. The mock push services verify
/// provider tokens with it exactly as Apple and Google do.
public struct VerifyingKey: Sendable {
    public let algorithm: SignatureAlgorithm
    let key: EVPKey

    /// Reads a PEM SubjectPublicKeyInfo and checks it for `algorithm`.
    public init(pem: String, algorithm: SignatureAlgorithm) throws(KeyError) {
        let pointer = MemoryBIO.reading(Array(pem.utf8)) { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
        try self.init(loaded: pointer, algorithm: algorithm)
    }

    /// Reads a DER SubjectPublicKeyInfo.
    public init(der: [UInt8], algorithm: SignatureAlgorithm) throws(KeyError) {
        let pointer = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        try self.init(loaded: pointer, algorithm: algorithm)
    }

    private init(loaded pointer: OpaquePointer?, algorithm: SignatureAlgorithm) throws(KeyError) {
        ERR_clear_error()
        guard let pointer else { throw .unreadable }
        let key = EVPKey(taking: pointer)
        try key.check(for: algorithm)
        self.key = key
        self.algorithm = algorithm
    }

    /// Whether `signature`, in JWS form (raw `r || s` for ES256), is valid over `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch algorithm {
        case .rs256:
            return key.verify(signature, for: message)
        case .es256:
            guard let der = ECDSASignature.der(fromRaw: signature) else { return false }
            return key.verify(der, for: message)
        }
    }

    public func pem() throws -> String {
        let bytes = try MemoryBIO.writing("PEM_write_bio_PUBKEY") { bio in PEM_write_bio_PUBKEY(bio, key.pointer) == 1 }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `SHA256:` and the base64url SHA-256 of the DER SubjectPublicKeyInfo: tells keys apart in
    /// listings and logs without showing any secret.
    public func fingerprint() throws -> String {
        "SHA256:" + Base64URL.encode(SHA256.hash(try key.publicKeyDER()))
    }
}
