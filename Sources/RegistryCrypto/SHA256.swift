import CCrypto
import Encodings

/// SHA-256 through libcrypto's EVP interface.
public enum SHA256 {
    public static let digestLength = 32

    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        EVPDigest.hash(bytes, algorithm: EVP_sha256(), length: digestLength, name: "SHA-256")
    }

    public static func hash(_ text: String) -> [UInt8] {
        hash(Array(text.utf8))
    }

    /// The digest of `bytes` as a value that allocates nothing, to make or to use as a dictionary
    /// key: what every authenticated request looks its API key up by (`KeyCache`).
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> Digest {
        var digest = Digest()
        withUnsafeMutableBytes(of: &digest.words) { output in
            ccrypto_sha256(bytes.baseAddress, bytes.count, output.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return digest
    }

    /// `digest(_:)` of a string's UTF-8, read in place (a native string's bytes are contiguous).
    public static func digest(_ text: Substring) -> Digest {
        if let digest = text.utf8.withContiguousStorageIfAvailable({ digest(UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(text.utf8).withUnsafeBytes { digest($0) }
    }

    public static func digest(_ text: String) -> Digest { digest(text[...]) }

    /// A SHA-256 digest held inline: 32 bytes in four words, hashable, no heap storage.
    public struct Digest: Hashable, Sendable {
        // The bytes in order, as `withUnsafeBytes(of:)` lays the tuple out.
        fileprivate var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        public static func == (left: Digest, right: Digest) -> Bool {
            left.words == right.words
        }

        public func hash(into hasher: inout Hasher) {
            withUnsafeBytes(of: words) { hasher.combine(bytes: $0) }
        }

        /// The 32 bytes, as `SHA256.hash` gives them.
        public var bytes: [UInt8] { withUnsafeBytes(of: words) { Array($0) } }

        /// Lowercase hex, as `Hex.encode(SHA256.hash(…))`: the form the database stores.
        public var hex: String { Hex.encode(bytes) }
    }
}
