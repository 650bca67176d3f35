import CCrypto

/// SHA-256 through libcrypto's EVP interface.
public enum SHA256 {
    public static let digestLength = 32

    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        EVPDigest.hash(bytes, algorithm: EVP_sha256(), length: digestLength, name: "SHA-256")
    }

    public static func hash(_ text: String) -> [UInt8] {
        hash(Array(text.utf8))
    }
}
