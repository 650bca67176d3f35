import Foundation
import Testing

@testable import RegistryCrypto

@Suite struct SigningKeyTests {
    @Test(arguments: SignatureAlgorithm.allCases)
    func signaturesVerifyWithThePublicHalfAndNotForOtherMessages(algorithm: SignatureAlgorithm) throws {
        let key = try SigningKey.generate(algorithm)
        let message = Array("header.payload".utf8)
        let signature = try key.sign(message)
        let verifier = try key.verifyingKey()
        #expect(verifier.isValidSignature(signature, for: message))
        #expect(!verifier.isValidSignature(signature, for: Array("header.payloaD".utf8)))
        #expect(!(try SigningKey.generate(algorithm).verifyingKey()).isValidSignature(signature, for: message))
    }

    /// JWS wants the raw `r || s`, never libcrypto's DER (70–72 bytes, starting 0x30).
    @Test func es256SignaturesAreRaw64Bytes() throws {
        let key = try SigningKey.generate(.es256)
        for index in 0..<20 {
            #expect(try key.sign(Array("message \(index)".utf8)).count == 64)
        }
    }

    @Test func rs256With2048BitsSignsWith256Bytes() throws {
        #expect(try SigningKey.generate(.rs256).sign([1, 2, 3]).count == 256)
    }

    @Test(arguments: SignatureAlgorithm.allCases)
    func pkcs8PEMRoundTripsAndSignsTheSame(algorithm: SignatureAlgorithm) throws {
        let key = try SigningKey.generate(algorithm)
        let pem = try key.pkcs8PEM()
        let reloaded = try SigningKey(pem: pem, algorithm: algorithm)
        #expect(try reloaded.verifyingKey().fingerprint() == key.verifyingKey().fingerprint())
        #expect(try key.verifyingKey().isValidSignature(reloaded.sign([42]), for: [42]))
    }

    @Test func publicKeyPEMRoundTrips() throws {
        let key = try SigningKey.generate(.es256).verifyingKey()
        let reloaded = try VerifyingKey(pem: key.pem(), algorithm: .es256)
        #expect(try reloaded.fingerprint() == key.fingerprint())
        #expect(try key.fingerprint().hasPrefix("SHA256:"))
    }

    @Test func aKeyOfTheOtherKindIsRefused() throws {
        let ec = try SigningKey.generate(.es256).pkcs8PEM()
        let rsa = try SigningKey.generate(.rs256).pkcs8PEM()
        #expect(throws: KeyError.wrongKind(expected: .rs256)) { try SigningKey(pem: ec, algorithm: .rs256) }
        #expect(throws: KeyError.wrongKind(expected: .es256)) { try SigningKey(pem: rsa, algorithm: .es256) }
    }

    @Test(arguments: ["", "not a key", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"])
    func unreadableTextIsRefused(text: String) {
        #expect(throws: KeyError.unreadable) { try SigningKey(pem: text, algorithm: .es256) }
    }

    @Test func aTruncatedKeyIsRefused() throws {
        let pem = try SigningKey.generate(.es256).pkcs8PEM()
        let lines = pem.split(separator: "\n")
        let truncated = ([lines[0], lines[1]] + [lines.last!]).joined(separator: "\n")
        #expect(throws: KeyError.unreadable) { try SigningKey(pem: truncated, algorithm: .es256) }
    }

    // Kinds libcrypto itself does not generate through `SigningKey.generate`: made with the
    // `openssl` command line, in a temporary directory, at test time.

    @Test func anotherCurveIsRefused() throws {
        let pem = try OpenSSLCommand.generateKey(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        #expect(throws: KeyError.wrongKind(expected: .es256)) { try SigningKey(pem: pem, algorithm: .es256) }
    }

    @Test func aShortRSAKeyIsRefused() throws {
        let pem = try OpenSSLCommand.generateKey(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        #expect(throws: KeyError.tooShort(bits: 1024)) { try SigningKey(pem: pem, algorithm: .rs256) }
    }

    /// An encrypted key must fail at once: libcrypto's default would prompt on the terminal.
    @Test func anEncryptedKeyIsRefusedWithoutPrompting() throws {
        let pem = try OpenSSLCommand.generateKey([
            "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-aes256", "-pass", "pass:secret",
        ])
        #expect(throws: KeyError.unreadable) { try SigningKey(pem: pem, algorithm: .es256) }
    }

    @Test func descriptionShowsNoKeyMaterial() throws {
        let key = try SigningKey.generate(.es256)
        #expect("\(key)" == "SigningKey(ES256)")
    }
}
