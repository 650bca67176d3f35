import Encodings
import Testing

@testable import RegistryCrypto

/// The AES-256 cases of McGrew & Viega, "The Galois/Counter Mode of Operation", Appendix B
/// (the vectors NIST's GCM validation uses).
@Suite struct AESGCMTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key, nonce, plaintext, additionalData, ciphertext, tag: String
        var testDescription: String { name }
    }

    static let key15 = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let plaintext15 =
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
    static let ciphertext15 =
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"

    static let vectors = [
        Vector(
            name: "Test Case 13", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
            plaintext: "", additionalData: "", ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(
            name: "Test Case 14", key: String(repeating: "00", count: 32), nonce: String(repeating: "00", count: 12),
            plaintext: String(repeating: "00", count: 16), additionalData: "",
            ciphertext: "cea7403d4d606b6e074ec5d3baf39d18", tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(
            name: "Test Case 15", key: key15, nonce: "cafebabefacedbaddecaf888", plaintext: plaintext15,
            additionalData: "", ciphertext: ciphertext15, tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(
            name: "Test Case 16", key: key15, nonce: "cafebabefacedbaddecaf888",
            plaintext: String(plaintext15.dropLast(8)), additionalData: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            ciphertext: String(ciphertext15.dropLast(8)), tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test(arguments: vectors)
    func sealMatchesThePublishedVector(vector: Vector) throws {
        let box = try AESGCM.seal(
            Hex.decode(vector.plaintext)!, key: Hex.decode(vector.key)!, nonce: Hex.decode(vector.nonce)!,
            additionalData: Hex.decode(vector.additionalData)!)
        #expect(Hex.encode(box.ciphertext) == vector.ciphertext)
        #expect(Hex.encode(box.tag) == vector.tag)
    }

    @Test(arguments: vectors)
    func openRecoversThePlaintext(vector: Vector) throws {
        let box = AESGCM.Box(ciphertext: Hex.decode(vector.ciphertext)!, tag: Hex.decode(vector.tag)!)
        let plaintext = try AESGCM.open(
            box, key: Hex.decode(vector.key)!, nonce: Hex.decode(vector.nonce)!,
            additionalData: Hex.decode(vector.additionalData)!)
        #expect(plaintext.map(Hex.encode) == vector.plaintext)
    }

    @Test func anyChangeFailsAuthentication() throws {
        let vector = Self.vectors[3]
        let key = Hex.decode(vector.key)!
        let nonce = Hex.decode(vector.nonce)!
        let aad = Hex.decode(vector.additionalData)!
        let ciphertext = Hex.decode(vector.ciphertext)!
        let tag = Hex.decode(vector.tag)!
        var flippedTag = tag
        flippedTag[15] ^= 0x01
        var flippedCiphertext = ciphertext
        flippedCiphertext[0] ^= 0x80
        var otherKey = key
        otherKey[31] ^= 0x01
        let box = AESGCM.Box(ciphertext: ciphertext, tag: tag)
        #expect(
            try AESGCM.open(
                AESGCM.Box(ciphertext: ciphertext, tag: flippedTag), key: key, nonce: nonce, additionalData: aad) == nil
        )
        #expect(
            try AESGCM.open(
                AESGCM.Box(ciphertext: flippedCiphertext, tag: tag), key: key, nonce: nonce, additionalData: aad) == nil
        )
        #expect(try AESGCM.open(box, key: otherKey, nonce: nonce, additionalData: aad) == nil)
        #expect(try AESGCM.open(box, key: key, nonce: nonce, additionalData: aad + [0]) == nil)
        #expect(
            try AESGCM.open(
                AESGCM.Box(ciphertext: ciphertext, tag: Array(tag.prefix(12))), key: key, nonce: nonce,
                additionalData: aad) == nil)
    }
}
