import Encodings
import Testing

@testable import RegistryCrypto

@Suite struct APIKeySecretTests {
    @Test func generatedKeysHaveTheDocumentedShapeAndParse() throws {
        var values = Set<String>()
        for _ in 0..<50 {
            let key = try APIKeySecret.generate()
            #expect(key.value.hasPrefix("drk_"))
            #expect(key.value.utf8.count == 4 + 43)
            #expect(APIKeySecret.parse(key.value) == key)
            values.insert(key.value)
        }
        #expect(values.count == 50)
    }

    @Test func hashIsSHA256OfTheWholeString() throws {
        let key = try APIKeySecret.generate()
        #expect(key.hash == SHA256.hash(key.value))
        #expect(key.hashHex == Hex.encode(SHA256.hash(key.value)))
        #expect(key.hashHex.count == 64)
        #expect(key.digest.hex == key.hashHex)
    }

    @Test func descriptionDoesNotRevealTheSecret() throws {
        let key = try APIKeySecret.generate()
        #expect("\(key)" == String(key.value.prefix(8)) + "…")
        #expect(!"\(key)".contains(String(key.value.dropFirst(8))))
    }

    static let valid = "drk_" + Base64URL.encode([UInt8](repeating: 0xab, count: 32))

    @Test func parsesAWellFormedKey() {
        #expect(APIKeySecret.parse(Self.valid)?.value == Self.valid)
    }

    static let body = String(valid.dropFirst(4))
    static let allButLast = String(valid.dropLast())
    static let malformed: [String] = [
        "",
        "drk_",
        body,  // no prefix
        "DRK_" + body,  // prefix is case-sensitive
        "drx_" + body,
        allButLast,  // 42 characters
        valid + "A",  // 44 characters
        allButLast + "+",  // standard alphabet
        allButLast + "=",  // padding
        allButLast + "é",
        allButLast + "B",  // non-canonical: the 43rd character must leave the unused bits zero
        " " + valid,
        valid + "\n",
    ]

    @Test(arguments: malformed)
    func rejectsMalformedKeys(presented: String) {
        #expect(APIKeySecret.parse(presented) == nil)
    }
}
