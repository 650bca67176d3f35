import CCrypto
import CallPush

/// AES-256-GCM straight from libcrypto, for the tests only: the real sealer is RegistryCrypto's,
/// wired in by the lead. `open` is what a phone does with the key it was given.
struct LibcryptoSealer: PayloadSealer {
    /// A fixed IV makes the output reproducible; nil draws a random one per seal.
    var fixedIV: [UInt8]?

    struct Failure: Error {
        let step: String
    }

    func seal(_ plaintext: [UInt8], key: PayloadKey) throws -> SealedPayload {
        var iv = fixedIV ?? [UInt8](repeating: 0, count: 12)
        if fixedIV == nil {
            guard RAND_bytes(&iv, 12) == 1 else { throw Failure(step: "RAND_bytes") }
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw Failure(step: "EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key.bytes, iv) == 1 else {
            throw Failure(step: "EVP_EncryptInit_ex")
        }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: Int32 = 0
        let input = plaintext.isEmpty ? [0] : plaintext
        guard EVP_EncryptUpdate(context, &ciphertext, &length, input, Int32(plaintext.count)) == 1 else {
            throw Failure(step: "EVP_EncryptUpdate")
        }
        var finalLength: Int32 = 0
        guard
            ciphertext.withUnsafeMutableBufferPointer({ buffer in
                EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(length), &finalLength)
            }) == 1
        else { throw Failure(step: "EVP_EncryptFinal_ex") }
        var tag = [UInt8](repeating: 0, count: 16)
        guard EVP_CIPHER_CTX_ctrl(context, Self.getTag, 16, &tag) == 1 else { throw Failure(step: "GET_TAG") }
        return SealedPayload(ciphertext: Array(ciphertext.prefix(Int(length + finalLength))), iv: iv, tag: tag)
    }

    /// Nil when the tag does not authenticate the ciphertext under the key.
    static func open(_ sealed: SealedPayload, key: [UInt8]) -> [UInt8]? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, sealed.iv) == 1 else { return nil }
        var plaintext = [UInt8](repeating: 0, count: sealed.ciphertext.count + 16)
        var length: Int32 = 0
        let input = sealed.ciphertext.isEmpty ? [0] : sealed.ciphertext
        guard EVP_DecryptUpdate(context, &plaintext, &length, input, Int32(sealed.ciphertext.count)) == 1 else {
            return nil
        }
        var tag = sealed.tag
        guard EVP_CIPHER_CTX_ctrl(context, setTag, Int32(tag.count), &tag) == 1 else { return nil }
        var finalLength: Int32 = 0
        let status = plaintext.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(length), &finalLength)
        }
        guard status == 1 else { return nil }
        return Array(plaintext.prefix(Int(length + finalLength)))
    }

    // EVP_CTRL_AEAD_GET_TAG / EVP_CTRL_AEAD_SET_TAG: macros Swift does not import.
    private static let getTag: Int32 = 0x10
    private static let setTag: Int32 = 0x11
}
