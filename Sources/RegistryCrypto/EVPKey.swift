import CCrypto

/// Owns one libcrypto `EVP_PKEY` and frees it once.
///
/// `@unchecked Sendable`: the key is never mutated after construction, and OpenSSL 3 allows one
/// `EVP_PKEY` to be used for signing and verifying from several threads at once as long as each
/// operation has its own `EVP_MD_CTX`, which `sign` and `verify` create per call.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Refuses a key that cannot serve `algorithm`: ES256 needs EC on P-256, RS256 an RSA key of
    /// at least 2048 bits.
    func check(for algorithm: SignatureAlgorithm) throws(KeyError) {
        switch algorithm {
        case .es256:
            guard EVP_PKEY_is_a(pointer, "EC") == 1, groupName == "prime256v1" else {
                throw .wrongKind(expected: algorithm)
            }
        case .rs256:
            guard EVP_PKEY_is_a(pointer, "RSA") == 1 else { throw .wrongKind(expected: algorithm) }
            let bits = EVP_PKEY_get_bits(pointer)
            guard bits >= SignatureAlgorithm.minimumRSABits else { throw .tooShort(bits: Int(bits)) }
        }
    }

    private var groupName: String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &buffer, buffer.count, &length) == 1 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The DER SubjectPublicKeyInfo of the public half (present in private keys too).
    func publicKeyDER() throws -> [UInt8] {
        let length = i2d_PUBKEY(pointer, nil)
        guard length > 0 else { throw CryptoError("i2d_PUBKEY") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pointer, &cursor)
        }
        guard written == length else { throw CryptoError("i2d_PUBKEY") }
        return der
    }

    /// SHA-256 over `message`, signed; the signature in libcrypto's encoding (DER for ECDSA).
    func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            throw CryptoError("EVP_DigestSignInit")
        }
        let input = message.isEmpty ? [0] : message
        var length = 0
        guard EVP_DigestSign(context, nil, &length, input, message.count) == 1 else {
            throw CryptoError("EVP_DigestSign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, input, message.count) == 1 else {
            throw CryptoError("EVP_DigestSign")
        }
        return Array(signature.prefix(length))
    }

    /// Whether `signature` (libcrypto's encoding) is this key's over SHA-256 of `message`.
    func verify(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard !signature.isEmpty, let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()  // A bad signature leaves an error queued; it is an answer, not a failure.
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        let input = message.isEmpty ? [0] : message
        return EVP_DigestVerify(context, signature, signature.count, input, message.count) == 1
    }
}
