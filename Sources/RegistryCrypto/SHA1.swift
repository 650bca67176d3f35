import CCrypto

/// SHA-1 through libcrypto's EVP interface, for name-based UUIDs (RFC 9562 version 5) only.
///
/// SHA-1 does not resist collisions: use it where a format fixes it and nothing relies on that
/// resistance (a UUID that dedupes a retried push), never for keys, signatures or integrity.
public enum SHA1 {
    public static let digestLength = 20

    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        EVPDigest.hash(bytes, algorithm: EVP_sha1(), length: digestLength, name: "SHA-1")
    }
}
