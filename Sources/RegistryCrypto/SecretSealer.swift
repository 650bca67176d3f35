/// Seals secrets at rest under the current master key and opens them under any key it was given,
/// so the master key can be rotated: seal with the new key, keep the old ones for opening until
/// every secret is resealed.
public struct SecretSealer: Sendable {
    public let current: MasterKey
    private let keys: [String: MasterKey]

    public init(current: MasterKey, previous: [MasterKey] = []) {
        self.current = current
        keys = Dictionary((previous + [current]).map { ($0.id, $0) }, uniquingKeysWith: { _, newer in newer })
    }

    /// Seals `plaintext` under the current key with a fresh random nonce. `context` names what
    /// the secret belongs to; `open` must be given the same one.
    public func seal(_ plaintext: [UInt8], context: String) throws -> String {
        let nonce = try SecureRandom.bytes(count: AESGCM.nonceLength)
        let box = try AESGCM.seal(
            plaintext, key: current.bytes, nonce: nonce,
            additionalData: SealedSecret.additionalData(keyID: current.id, context: context))
        return SealedSecret(keyID: current.id, nonce: nonce, box: box).text
    }

    /// The plaintext. Throws `SealError` when `sealed` is malformed, names a key this sealer was
    /// not given, or does not authenticate (tampered, or sealed for another context).
    public func open(_ sealed: String, context: String) throws -> [UInt8] {
        guard let secret = SealedSecret(parsing: sealed) else { throw SealError.malformed }
        guard let key = keys[secret.keyID] else { throw SealError.unknownKey(id: secret.keyID) }
        let plaintext = try AESGCM.open(
            secret.box, key: key.bytes, nonce: secret.nonce,
            additionalData: SealedSecret.additionalData(keyID: key.id, context: context))
        guard let plaintext else { throw SealError.notAuthentic }
        return plaintext
    }

    /// True when `sealed` was sealed under an older key (or cannot be read), so a reseal pass
    /// should open and seal it again.
    public func needsResealing(_ sealed: String) -> Bool {
        SealedSecret(parsing: sealed)?.keyID != current.id
    }
}
