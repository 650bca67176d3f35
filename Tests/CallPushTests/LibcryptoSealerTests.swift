import CallPush
import Encodings
import RegistryCrypto
import Testing

/// The test sealer is checked against the GCM specification's test case 15 (AES-256, 96-bit
/// IV, no associated data), so the SignalWire round trips rest on real AES-256-GCM.
@Suite struct LibcryptoSealerTests {
    static let key = Hex.decode("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")!
    static let iv = Hex.decode("cafebabefacedbaddecaf888")!
    static let plaintext = Hex.decode(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
    )!

    @Test func sealsTheSpecificationsVector() throws {
        let sealed = try LibcryptoSealer(fixedIV: Self.iv).seal(Self.plaintext, key: PayloadKey(Self.key)!)
        #expect(
            Hex.encode(sealed.ciphertext)
                == "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
        )
        #expect(Hex.encode(sealed.tag) == "b094dac5d93471bdec1a502270e3cc6c")
        #expect(sealed.iv == Self.iv)
        #expect(LibcryptoSealer.open(sealed, key: Self.key) == Self.plaintext)
    }
}
