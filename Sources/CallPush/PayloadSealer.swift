/// AES-256-GCM for SignalWire's `invite`: seals `plaintext` under `key` with a fresh random
/// 12-byte IV per call and a 16-byte tag, no associated data.
///
/// A protocol so the composer is handed its one source of randomness; `AESGCMPayloadSealer` is
/// the implementation.
public protocol PayloadSealer: Sendable {
    func seal(_ plaintext: [UInt8], key: PayloadKey) throws -> SealedPayload
}

/// What AES-256-GCM gives back: the ciphertext (as long as the plaintext), the IV used and the
/// authentication tag. The phone needs all three, with the key, to open it.
public struct SealedPayload: Sendable, Hashable {
    public let ciphertext: [UInt8]
    public let iv: [UInt8]
    public let tag: [UInt8]

    public init(ciphertext: [UInt8], iv: [UInt8], tag: [UInt8]) {
        self.ciphertext = ciphertext
        self.iv = iv
        self.tag = tag
    }
}
