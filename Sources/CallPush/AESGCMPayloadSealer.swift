import RegistryCrypto

/// The payload sealer: RegistryCrypto's AES-256-GCM under the device's key, with a fresh 12-byte
/// IV from `SecureRandom` for every seal — an IV repeated under one key would give away the XOR
/// of two invites and let anyone forge tags.
public struct AESGCMPayloadSealer: PayloadSealer {
    public init() {}

    /// Throws `CryptoError` when libcrypto's random generator or cipher fails; never seals with a
    /// weaker IV instead.
    public func seal(_ plaintext: [UInt8], key: PayloadKey) throws -> SealedPayload {
        let iv = try SecureRandom.bytes(count: AESGCM.nonceLength)
        let box = try AESGCM.seal(plaintext, key: key.bytes, nonce: iv)
        return SealedPayload(ciphertext: box.ciphertext, iv: iv, tag: box.tag)
    }
}
