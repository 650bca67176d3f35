import CCrypto

/// SHA-256 over input that arrives in parts (a streamed body), through libcrypto's EVP digest
/// context: the same hash as `SHA256.hash` of the parts joined.
public final class SHA256Hasher {
    private let context: OpaquePointer

    public init() {
        // As in EVPDigest: only allocation failure can fail here, and a wrong hash is worse.
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex(SHA-256) failed")
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: some Collection<UInt8>) {
        guard !bytes.isEmpty else { return }
        let status = Array(bytes).withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        precondition(status == 1, "EVP_DigestUpdate(SHA-256) failed")
    }

    public func update(_ text: String) { update(Array(text.utf8)) }

    /// The digest of everything given so far; the hasher is spent afterwards.
    public func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: SHA256.digestLength)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        precondition(status == 1 && length == UInt32(SHA256.digestLength), "EVP_DigestFinal_ex(SHA-256) failed")
        return digest
    }
}
