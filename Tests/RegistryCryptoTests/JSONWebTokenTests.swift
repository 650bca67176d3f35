import Encodings
import Foundation
import Testing

@testable import RegistryCrypto

@Suite struct JSONWebTokenTests {
    struct ProviderClaims: Codable, Equatable {
        let iss: String
        let iat: Int
    }

    @Test func anAPNsStyleTokenCarriesAlgKidAndNumericIat() throws {
        let key = try SigningKey.generate(.es256)
        let token = try JSONWebToken.sign(
            claims: ProviderClaims(iss: "ABCDE12345", iat: 1_700_000_000), keyID: "XYZ987WVU6", with: key)
        let jws = try #require(CompactJWS(parsing: token))
        #expect(jws.header == JOSEHeader(algorithm: "ES256", keyID: "XYZ987WVU6", type: "JWT"))
        #expect(String(decoding: jws.payload, as: UTF8.self) == #"{"iat":1700000000,"iss":"ABCDE12345"}"#)
        #expect(jws.payload(as: ProviderClaims.self) == ProviderClaims(iss: "ABCDE12345", iat: 1_700_000_000))
        #expect(jws.isSigned(by: try key.verifyingKey()))
    }

    @Test func withoutAKeyIDTheHeaderHasNoKid() throws {
        let token = try JSONWebToken.sign(
            claims: ["aud": "https://oauth2.example/token"], keyID: nil, with: SigningKey.generate(.rs256))
        let header = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"RS256","typ":"JWT"}"#)
        // Slashes stay readable: Google compares `aud` after JSON decoding either way.
        let payload = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
        #expect(String(decoding: payload, as: UTF8.self) == #"{"aud":"https://oauth2.example/token"}"#)
    }

    @Test func anotherKeysTokenDoesNotVerify() throws {
        let token = try JSONWebToken.sign(
            claims: ProviderClaims(iss: "A", iat: 1), keyID: "K", with: SigningKey.generate(.es256))
        let jws = try #require(CompactJWS(parsing: token))
        #expect(!jws.isSigned(by: try SigningKey.generate(.es256).verifyingKey()))
    }
}
