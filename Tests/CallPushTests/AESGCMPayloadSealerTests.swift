import CallPush
import RegistryCrypto
import Testing

/// The sealer behind SignalWire's invite: AES-256-GCM with no associated data, a 16-byte tag and a
/// fresh 12-byte IV per seal. The cipher itself is checked against the GCM specification's vectors
/// in `AESGCMTests`.
@Suite struct AESGCMPayloadSealerTests {
    static let key = PayloadKey((0..<32).map { UInt8($0) })!
    static let plaintext = Array("a call invite".utf8)

    @Test func aSealOpensWithTheKeyAndItsIVAndTag() throws {
        let sealed = try AESGCMPayloadSealer().seal(Self.plaintext, key: Self.key)
        #expect(sealed.iv.count == 12)
        #expect(sealed.tag.count == 16)
        #expect(sealed.ciphertext.count == Self.plaintext.count)
        #expect(sealed.ciphertext != Self.plaintext)
        let box = AESGCM.Box(ciphertext: sealed.ciphertext, tag: sealed.tag)
        #expect(try AESGCM.open(box, key: Self.key.bytes, nonce: sealed.iv) == Self.plaintext)
    }

    @Test func everySealDrawsAFreshIV() throws {
        let sealer = AESGCMPayloadSealer()
        let ivs = try (0..<8).map { _ in try sealer.seal(Self.plaintext, key: Self.key).iv }
        #expect(Set(ivs).count == ivs.count)
    }
}
