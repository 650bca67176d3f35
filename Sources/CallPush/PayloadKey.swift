import RegistryCrypto

/// A device's AES-256 key for SignalWire-style encrypted payloads: 32 bytes the phone received
/// once at registration. `description` never shows the bytes, so a key cannot reach a log by
/// interpolation.
public struct PayloadKey: Sendable, Hashable, CustomStringConvertible {
    public static let byteCount = AESGCM.keyLength

    public let bytes: [UInt8]

    /// Nil unless exactly 32 bytes.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    public var description: String { "PayloadKey(redacted)" }
}
