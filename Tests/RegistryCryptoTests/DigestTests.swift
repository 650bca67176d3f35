import Encodings
import Testing

@testable import RegistryCrypto

@Suite struct DigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func sha256KnownVectors(input: String, expected: String) {
        #expect(Hex.encode(SHA256.hash(input)) == expected)
        #expect(Hex.encode(SHA256.hash(Array(input.utf8)[...])) == expected)
        #expect(SHA256.digest(input).hex == expected)
        #expect(SHA256.digest(input).bytes == SHA256.hash(input))
        #expect(SHA256.digest(("x" + input + "y").dropFirst().dropLast()).hex == expected, "a substring, in place")
        // In parts, split anywhere, and with an empty part: the same digest.
        let hasher = SHA256Hasher()
        let bytes = Array(input.utf8)
        hasher.update(bytes.prefix(bytes.count / 3))
        hasher.update([UInt8]())
        hasher.update(bytes.dropFirst(bytes.count / 3))
        #expect(Hex.encode(hasher.finish()) == expected)
    }

    @Test func digestsAreEqualAndHashedByTheirBytes() {
        #expect(SHA256.digest("a") == SHA256.digest("a"))
        #expect(SHA256.digest("a") != SHA256.digest("b"))
        #expect(Set([SHA256.digest("a"), SHA256.digest("a"), SHA256.digest("b")]).count == 2)
    }

    @Test func sha256OfAMillionAsInParts() {
        // FIPS 180-2's long vector: one million "a", fed 1,000 at a time.
        let hasher = SHA256Hasher()
        for _ in 0..<1000 { hasher.update(String(repeating: "a", count: 1000)) }
        #expect(Hex.encode(hasher.finish()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hmacRFC4231TestCase1() {
        let mac = HMAC.sha256(key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8))
        #expect(Hex.encode(mac) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    @Test func hmacRFC4231TestCase2() {
        let mac = HMAC.sha256(key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8))
        #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func hmacRFC4231TestCase6KeyLongerThanBlock() {
        let mac = HMAC.sha256(
            key: [UInt8](repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(Hex.encode(mac) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func hmacOfEmptyKeyAndData() {
        // Well-known value of HMAC-SHA256("", "").
        #expect(
            Hex.encode(HMAC.sha256(key: [], data: []))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func constantTimeEquals() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([UInt8](), []))
        #expect(!ConstantTime.equals([], [0]))
    }
}
