import CCrypto

/// One-shot hashing through libcrypto's `EVP_Digest`, the one call behind `SHA256` and `SHA1`.
enum EVPDigest {
    /// The digest of `bytes` under `algorithm` (`EVP_sha256()`), which must give `length` bytes.
    static func hash(
        _ bytes: some Collection<UInt8>, algorithm: OpaquePointer, length digestLength: Int, name: String
    ) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestLength)
        var length: UInt32 = 0
        let count = bytes.count
        // A real 1-byte buffer for empty input: an empty array may have no base address.
        let input = count == 0 ? [0] : Array(bytes)
        let status = input.withUnsafeBytes { inputBuffer in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(inputBuffer.baseAddress, count, output.baseAddress, &length, algorithm, nil)
            }
        }
        // EVP_Digest with a built-in digest only fails on allocation failure; there is no
        // meaningful recovery and a wrong hash would be a security bug, so stop.
        precondition(status == 1 && length == UInt32(digestLength), "EVP_Digest(\(name)) failed")
        return digest
    }
}
