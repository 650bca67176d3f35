import CCrypto

/// AES-256-GCM (NIST SP 800-38D) through libcrypto's EVP interface, with a 96-bit nonce and a
/// 128-bit tag.
public enum AESGCM {
    public static let keyLength = 32
    public static let nonceLength = 12
    public static let tagLength = 16

    public struct Box: Sendable, Equatable {
        public let ciphertext: [UInt8]
        public let tag: [UInt8]

        public init(ciphertext: [UInt8], tag: [UInt8]) {
            self.ciphertext = ciphertext
            self.tag = tag
        }
    }

    /// Encrypts `plaintext` and authenticates it together with `additionalData`. The nonce must
    /// never repeat under one key; `SecretSealer` draws a fresh random one for every seal.
    public static func seal(
        _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], additionalData: [UInt8] = []
    ) throws -> Box {
        precondition(key.count == keyLength && nonce.count == nonceLength, "AES-256-GCM key or nonce of wrong length")
        let context = try CipherContext(key: key, nonce: nonce, encrypting: true)
        try context.authenticate(additionalData)
        let ciphertext = try context.update(plaintext)
        var length: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_EncryptFinal_ex(context.pointer, &scratch, &length) == 1, length == 0 else {
            throw CryptoError("EVP_EncryptFinal_ex")
        }
        var tag = [UInt8](repeating: 0, count: tagLength)
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &tag) == 1 else {
            throw CryptoError("EVP_CTRL_GCM_GET_TAG")
        }
        return Box(ciphertext: ciphertext, tag: tag)
    }

    /// The plaintext, or nil when the tag does not authenticate the ciphertext, the additional
    /// data, key and nonce together — a wrong key and a tampered byte look the same, on purpose.
    public static func open(
        _ box: Box, key: [UInt8], nonce: [UInt8], additionalData: [UInt8] = []
    ) throws -> [UInt8]? {
        precondition(key.count == keyLength && nonce.count == nonceLength, "AES-256-GCM key or nonce of wrong length")
        guard box.tag.count == tagLength else { return nil }
        let context = try CipherContext(key: key, nonce: nonce, encrypting: false)
        try context.authenticate(additionalData)
        let plaintext = try context.update(box.ciphertext)
        var tag = box.tag
        guard EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1 else {
            throw CryptoError("EVP_CTRL_GCM_SET_TAG")
        }
        var length: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptFinal_ex(context.pointer, &scratch, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return plaintext
    }
}

/// One `EVP_CIPHER_CTX` set up for AES-256-GCM in one direction, freed on deinit.
private final class CipherContext {
    let pointer: OpaquePointer
    private let encrypting: Bool

    init(key: [UInt8], nonce: [UInt8], encrypting: Bool) throws {
        guard let pointer = EVP_CIPHER_CTX_new() else { throw CryptoError("EVP_CIPHER_CTX_new") }
        self.pointer = pointer
        self.encrypting = encrypting
        // The default GCM nonce length is the 12 bytes used here, so no EVP_CTRL_GCM_SET_IVLEN.
        let status =
            encrypting
            ? EVP_EncryptInit_ex(pointer, EVP_aes_256_gcm(), nil, key, nonce)
            : EVP_DecryptInit_ex(pointer, EVP_aes_256_gcm(), nil, key, nonce)
        guard status == 1 else { throw CryptoError("EVP_CipherInit_ex(aes-256-gcm)") }
    }

    deinit {
        EVP_CIPHER_CTX_free(pointer)
    }

    func authenticate(_ additionalData: [UInt8]) throws {
        guard !additionalData.isEmpty else { return }
        var length: Int32 = 0
        let status =
            encrypting
            ? EVP_EncryptUpdate(pointer, nil, &length, additionalData, Int32(additionalData.count))
            : EVP_DecryptUpdate(pointer, nil, &length, additionalData, Int32(additionalData.count))
        guard status == 1 else { throw CryptoError("EVP_CipherUpdate(aad)") }
    }

    /// GCM is a stream mode: the output has exactly the input's length.
    func update(_ input: [UInt8]) throws -> [UInt8] {
        guard !input.isEmpty else { return [] }
        var output = [UInt8](repeating: 0, count: input.count)
        var length: Int32 = 0
        let status =
            encrypting
            ? EVP_EncryptUpdate(pointer, &output, &length, input, Int32(input.count))
            : EVP_DecryptUpdate(pointer, &output, &length, input, Int32(input.count))
        guard status == 1, Int(length) == input.count else { throw CryptoError("EVP_CipherUpdate") }
        return output
    }
}
