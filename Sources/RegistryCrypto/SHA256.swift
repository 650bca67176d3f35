import CCrypto

/// SHA-256 through libcrypto's EVP interface.
public enum SHA256 {
    public static let digestLength = 32

    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestLength)
        var length: UInt32 = 0
        let count = bytes.count
        // A real 1-byte buffer for empty input: an empty array may have no base address.
        let input = count == 0 ? [0] : Array(bytes)
        let status = input.withUnsafeBytes { inputBuffer in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(inputBuffer.baseAddress, count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        // EVP_Digest with a built-in digest only fails on allocation failure; there is no
        // meaningful recovery and a wrong hash would be a security bug, so stop.
        precondition(status == 1 && length == UInt32(digestLength), "EVP_Digest(SHA-256) failed")
        return digest
    }

    public static func hash(_ text: String) -> [UInt8] {
        hash(Array(text.utf8))
    }
}
