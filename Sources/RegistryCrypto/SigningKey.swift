import CCrypto

/// A private key that signs JWS messages with one fixed algorithm: an APNs `.p8` key for ES256,
/// a Google service account's `private_key` for RS256.
///
/// Constructed only valid: loading checks that the key suits the algorithm. `description` never
/// shows key material, so a key interpolated into a log line leaks nothing.
public struct SigningKey: Sendable, CustomStringConvertible {
    public let algorithm: SignatureAlgorithm
    let key: EVPKey

    /// Reads a PEM private key — PKCS#8 as Apple and Google issue it, or the traditional EC/RSA
    /// forms — and checks it for `algorithm`. Encrypted keys are refused, never prompted for.
    public init(pem: String, algorithm: SignatureAlgorithm) throws(KeyError) {
        let pointer = MemoryBIO.reading(Array(pem.utf8)) { bio in
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        try self.init(loaded: pointer, algorithm: algorithm)
    }

    /// Reads a DER private key (PKCS#8 or the traditional EC/RSA structures).
    public init(der: [UInt8], algorithm: SignatureAlgorithm) throws(KeyError) {
        let pointer = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        try self.init(loaded: pointer, algorithm: algorithm)
    }

    private init(loaded pointer: OpaquePointer?, algorithm: SignatureAlgorithm) throws(KeyError) {
        ERR_clear_error()  // A refused key leaves its parse errors queued; the KeyError says it all.
        guard let pointer else { throw .unreadable }
        let key = EVPKey(taking: pointer)
        try key.check(for: algorithm)
        self.key = key
        self.algorithm = algorithm
    }

    /// A fresh random key: P-256 for ES256, 2048-bit RSA for RS256. For tests and local setups;
    /// real keys come from Apple and Google.
    public static func generate(_ algorithm: SignatureAlgorithm) throws -> SigningKey {
        let name = algorithm == .es256 ? "EC" : "RSA"
        guard let context = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw CryptoError("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw CryptoError("EVP_PKEY_keygen_init") }
        let configured =
            switch algorithm {
            case .es256: EVP_PKEY_CTX_set_group_name(context, "P-256")
            case .rs256: EVP_PKEY_CTX_set_rsa_keygen_bits(context, SignatureAlgorithm.minimumRSABits)
            }
        guard configured == 1 else { throw CryptoError("EVP_PKEY_CTX key parameters") }
        var pointer: OpaquePointer?
        guard EVP_PKEY_generate(context, &pointer) == 1, let pointer else { throw CryptoError("EVP_PKEY_generate") }
        return try SigningKey(loaded: pointer, algorithm: algorithm)
    }

    /// The key as unencrypted PKCS#8 PEM text, the form of an APNs `.p8` file and of a service
    /// account's `private_key`. Only tests and key setup need this; never log it.
    public func pkcs8PEM() throws -> String {
        let bytes = try MemoryBIO.writing("PEM_write_bio_PrivateKey") { bio in
            PEM_write_bio_PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil) == 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public func verifyingKey() throws -> VerifyingKey {
        try VerifyingKey(der: key.publicKeyDER(), algorithm: algorithm)
    }

    /// The JWS signature (RFC 7515 §5.1 step 5) over `message`: for ES256 the raw 64-byte `r || s`
    /// of RFC 7518 §3.4, not the DER structure libcrypto produces; for RS256 PKCS#1 v1.5.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        let signature = try key.sign(message)
        switch algorithm {
        case .rs256: return signature
        case .es256:
            guard let raw = ECDSASignature.raw(fromDER: signature) else { throw CryptoError("d2i_ECDSA_SIG") }
            return raw
        }
    }

    public var description: String { "SigningKey(\(algorithm.rawValue))" }
}
