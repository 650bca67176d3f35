import CCrypto

/// SHA-1 through libcrypto, for name-based UUIDs (RFC 9562 version 5) only: nothing here relies
/// on it resisting collisions. RegistryCrypto has no SHA-1, and this target may not add to it.
enum SHA1 {
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let count = bytes.count
        // A real 1-byte buffer for empty input: an empty array may have no base address.
        let input = count == 0 ? [0] : bytes
        let status = input.withUnsafeBytes { inputBuffer in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(inputBuffer.baseAddress, count, output.baseAddress, &length, EVP_sha1(), nil)
            }
        }
        // Only allocation failure gets here; a wrong id would silently break deduplication.
        precondition(status == 1 && length == 20, "EVP_Digest(SHA-1) failed")
        return digest
    }
}
