import Encodings
import Testing

@testable import RegistryCrypto

@Suite struct SecretSealerTests {
    static let secret = Array("the p8 file's text".utf8)

    @Test func sealsAndOpensUnderTheSameContext() throws {
        let sealer = SecretSealer(current: try MasterKey.generate())
        let sealed = try sealer.seal(Self.secret, context: "provider:ios-app")
        #expect(try sealer.open(sealed, context: "provider:ios-app") == Self.secret)
        // The whole secret, neither as text nor as base64url; a two-letter fragment of it turns
        // up in random ciphertext about once in sixty seals.
        #expect(!sealed.contains(String(decoding: Self.secret, as: UTF8.self)))
        #expect(!sealed.contains(Base64URL.encode(Self.secret)))
    }

    @Test func theFormatCarriesVersionKeyIDNonceCiphertextAndTag() throws {
        let key = try MasterKey.generate()
        let sealed = try SecretSealer(current: key).seal(Self.secret, context: "c")
        let parts = sealed.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 5)
        #expect(parts[0] == "v1")
        #expect(parts[1] == key.id)
        #expect(Base64URL.decode(parts[2])?.count == 12)
        #expect(Base64URL.decode(parts[3])?.count == Self.secret.count)
        #expect(Base64URL.decode(parts[4])?.count == 16)
    }

    @Test func everySealUsesAFreshNonce() throws {
        let sealer = SecretSealer(current: try MasterKey.generate())
        let nonces = try (0..<50).map { _ in
            String(try sealer.seal(Self.secret, context: "c").split(separator: ".")[2])
        }
        #expect(Set(nonces).count == 50)
    }

    @Test func aTamperedTagOrAnotherContextDoesNotOpen() throws {
        let sealer = SecretSealer(current: try MasterKey.generate())
        let sealed = try sealer.seal(Self.secret, context: "provider:a")
        var parts = sealed.split(separator: ".").map(String.init)
        var tag = Base64URL.decode(parts[4])!
        tag[0] ^= 0x01
        parts[4] = Base64URL.encode(tag)
        #expect(throws: SealError.notAuthentic) { try sealer.open(parts.joined(separator: "."), context: "provider:a") }
        #expect(throws: SealError.notAuthentic) { try sealer.open(sealed, context: "provider:b") }
    }

    @Test func anOldKeyStillOpensAndAsksForResealing() throws {
        let old = try MasterKey.generate()
        let sealedUnderOld = try SecretSealer(current: old).seal(Self.secret, context: "c")
        let rotated = SecretSealer(current: try MasterKey.generate(), previous: [old])
        #expect(try rotated.open(sealedUnderOld, context: "c") == Self.secret)
        #expect(rotated.needsResealing(sealedUnderOld))
        let resealed = try rotated.seal(rotated.open(sealedUnderOld, context: "c"), context: "c")
        #expect(!rotated.needsResealing(resealed))
    }

    @Test func aKeyNotGivenIsNamedByItsID() throws {
        let other = try MasterKey.generate()
        let sealed = try SecretSealer(current: other).seal(Self.secret, context: "c")
        let sealer = SecretSealer(current: try MasterKey.generate())
        #expect(throws: SealError.unknownKey(id: other.id)) { try sealer.open(sealed, context: "c") }
    }

    /// The key id is part of the authenticated data: relabelling a value with another
    /// configured key's id fails authentication instead of decrypting under the wrong key.
    @Test func relabellingTheKeyIDDoesNotOpen() throws {
        let first = try MasterKey.generate()
        let second = try MasterKey.generate()
        let sealer = SecretSealer(current: first, previous: [second])
        var parts = try sealer.seal(Self.secret, context: "c").split(separator: ".").map(String.init)
        parts[1] = second.id
        #expect(throws: SealError.notAuthentic) { try sealer.open(parts.joined(separator: "."), context: "c") }
    }

    @Test(arguments: [
        "", "v1", "v2.a.AAAAAAAAAAAAAAAA.AA.AAAAAAAAAAAAAAAAAAAAAA", "v1.a.AAAA.AA.AAAAAAAAAAAAAAAAAAAAAA",
    ])
    func malformedValuesAreRefused(text: String) throws {
        #expect(throws: SealError.malformed) {
            try SecretSealer(current: try MasterKey.generate()).open(text, context: "c")
        }
    }

    @Test func masterKeysParseStrictly() throws {
        let key = try MasterKey.generate()
        #expect(try MasterKey(base64url: key.base64url).id == key.id)
        #expect(key.base64url.count == 43)
        #expect(key.id.count == 8)
        #expect("\(key)" == "MasterKey(\(key.id))")
        #expect(throws: MasterKeyError.notBase64URL) { try MasterKey(base64url: key.base64url + "=") }
        #expect(throws: MasterKeyError.wrongLength(bytes: 16)) {
            try MasterKey(base64url: Base64URL.encode([UInt8](repeating: 7, count: 16)))
        }
    }
}
