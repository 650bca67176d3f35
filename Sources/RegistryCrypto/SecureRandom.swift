import CCrypto

/// Cryptographically secure random bytes from OpenSSL's DRBG.
public enum SecureRandom {
    /// Throws `CryptoError` if the generator is not seeded — never fall back to a weaker source.
    public static func bytes(count: Int) throws -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "count out of range")
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard status == 1 else { throw CryptoError("RAND_bytes") }
        return bytes
    }
}
