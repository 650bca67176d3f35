import Encodings

/// An API key as presented by a client: `drk_` followed by 43 base64url characters (32 random
/// bytes). Only its SHA-256 is stored; the plain secret is shown once, at creation.
///
/// The prefix makes leaked keys recognisable to secret scanners and lets `parse` refuse
/// obviously-wrong input before any database work. `description` is redacted so a key cannot end
/// up in a log by interpolation.
public struct APIKeySecret: Sendable, Hashable, CustomStringConvertible {
    public static let prefix = "drk_"
    static let secretByteCount = 32
    static let encodedLength = 43

    /// The full presented string, `drk_…`.
    public let value: String

    private init(value: String) {
        self.value = value
    }

    /// A new random key.
    public static func generate() throws -> APIKeySecret {
        APIKeySecret(value: prefix + Base64URL.encode(try SecureRandom.bytes(count: secretByteCount)))
    }

    /// The key if `presented` has exactly the shape `generate()` produces (prefix, 43 canonical
    /// base64url characters); nil otherwise. Says nothing about whether the key exists.
    public static func parse(_ presented: String) -> APIKeySecret? {
        guard presented.hasPrefix(prefix) else { return nil }
        let body = String(presented.utf8.dropFirst(prefix.utf8.count))!
        guard body.utf8.count == encodedLength, let bytes = Base64URL.decode(body), bytes.count == secretByteCount
        else {
            return nil
        }
        return APIKeySecret(value: presented)
    }

    /// SHA-256 of the full string, prefix included: what the database stores and looks up by.
    /// A fast hash is right here — the secret has 256 bits of entropy, so there is nothing to
    /// brute-force, unlike a password.
    public var hash: [UInt8] { SHA256.hash(value) }

    public var hashHex: String { Hex.encode(hash) }

    /// `hash` as an inline value (`SHA256.Digest`), the key of the authenticated-key cache. A
    /// presented key is hashed straight from the request's header (`SHA256.digest`), so that a
    /// cached key is recognised without parsing or copying it.
    public var digest: SHA256.Digest { SHA256.digest(value) }

    /// `drk_` and the first 4 secret characters: enough to tell keys apart in a listing.
    public var displayPrefix: String { String(value.prefix(Self.prefix.count + 4)) }

    public var description: String { displayPrefix + "…" }
}
