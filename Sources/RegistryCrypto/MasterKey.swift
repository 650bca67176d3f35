import Encodings

/// The key secrets are sealed under at rest (`REGISTRY_MASTER_KEY`): 32 random bytes written as
/// 43 base64url characters.
///
/// Its `id` is derived from the key itself, so a sealed value can name the key it needs without
/// anyone assigning ids, and rotating keys is only "give the new key, keep the old one listed".
/// The id is an HMAC of the key, so it reveals nothing about it. `description` shows the id only.
public struct MasterKey: Sendable, CustomStringConvertible {
    public let id: String
    let bytes: [UInt8]

    /// Strict: exactly 32 bytes in canonical unpadded base64url, no surrounding whitespace.
    public init(base64url text: String) throws(MasterKeyError) {
        guard let bytes = Base64URL.decode(text) else { throw .notBase64URL }
        guard bytes.count == AESGCM.keyLength else { throw .wrongLength(bytes: bytes.count) }
        self.bytes = bytes
        id = Base64URL.encode(HMAC.sha256(key: bytes, data: Array("DeviceRegistry master key id".utf8)).prefix(6))
    }

    public static func generate() throws -> MasterKey {
        try MasterKey(base64url: Base64URL.encode(try SecureRandom.bytes(count: AESGCM.keyLength)))
    }

    /// The key as configured: what `scripts/serve` writes to its key file. Never log it.
    public var base64url: String { Base64URL.encode(bytes) }

    public var description: String { "MasterKey(\(id))" }
}
