import Encodings
import RegistryCrypto
import Testing

/// FIPS 180's SHA-1 examples (and the empty input), the bytes under every version 5 UUID.
@Suite struct SHA1Tests {
    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func knownVectors(input: String, expected: String) {
        #expect(Hex.encode(SHA1.hash(Array(input.utf8))) == expected)
        #expect(Hex.encode(SHA1.hash(input.utf8)) == expected)
    }
}
