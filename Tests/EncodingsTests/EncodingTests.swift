import Testing

@testable import Encodings

@Suite struct EncodingTests {
    // RFC 4648 §10 vectors, which need no url-safe characters, without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func base64URLVectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func base64URLUsesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
    }

    @Test func base64URLRoundTripsEveryLengthUpTo70() {
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("="))
            #expect(encoded.utf8.count == (length * 4 + 2) / 3)
            #expect(Base64URL.decode(encoded) == bytes)
        }
    }

    @Test(arguments: [
        "Zg==",  // padding
        "Zm9v+",  // standard alphabet
        "Zm9v/w",
        "Z",  // impossible length 4n+1
        "Zm9vY",
        "Zh",  // non-zero unused bits: "Zg" is the only spelling of "f"
        "Zm9 v",  // whitespace
        "é",
    ])
    func base64URLRejects(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test func hexEncodesLowercaseAndDecodesEitherCase() {
        #expect(Hex.encode([0x00, 0xab, 0xff, 0x10]) == "00abff10")
        #expect(Hex.decode("00ABff10") == [0x00, 0xab, 0xff, 0x10])
        #expect(Hex.decode("") == [])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }
}
