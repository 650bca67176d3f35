import CCrypto

/// Comparison whose running time does not depend on where two secrets differ.
public enum ConstantTime {
    /// Equal length and equal bytes. The length is not treated as secret (hashes and MACs being
    /// compared have a fixed public length); the contents are compared with `CRYPTO_memcmp`.
    public static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        let left = Array(a)
        let right = Array(b)
        guard left.count == right.count else { return false }
        guard !left.isEmpty else { return true }
        return left.withUnsafeBytes { l in
            right.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0 }
        }
    }
}
