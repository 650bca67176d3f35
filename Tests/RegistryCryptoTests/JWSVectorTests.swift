import Encodings
import Testing

@testable import RegistryCrypto

/// RFC 7515 Appendix A.2 (RS256) and A.3 (ES256), with the keys as the RFC prints them (JWK).
@Suite struct JWSVectorTests {
    /// `{"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}`, exactly as A.1.
    static let payload = Base64URL.decode(
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ")!

    static let rsaKey: [String: String] = [
        "n":
            "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS"
            + "-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2"
            + "CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb"
            + "54h4FRWyuXpoQ",
        "e": "AQAB",
        "d":
            "Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46sui395IW_GO"
            + "-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4qAdGcopV_0ZHHzQlBju"
            + "dU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB4cS98l2SR_RQyGWSeWjnczT0QU91p1"
            + "DhOVRuOopznQ",
        "p":
            "4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8cQn7ouZ2K"
            + "KDcmnPGBY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc",
        "q":
            "uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t62wDmpe_H"
            + "lB-TnBA-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc",
        "dp":
            "BwKfV3Akq5_MFZDFZCnW-wzl-CCo83WoZvnLQwCTeDv8uzluRSnm71I3QCLdhrqE2e9YkxvuxdBfpT_PI7Yz-FOKnu1R6HsJeDCjn12Sk3vm"
            + "AktV2zb34MCdy7cpdTh_YVr7tss2u6vneTwrA86rZtu5Mbr1C1XsmvkxHQAdYo0",
        "dq":
            "h_96-mK1R_7glhsum81dZxjTnYynPbZpHziZjeeHcXYsXaaMwkOlODsWa7I9xXDoRwbKgB719rrmI2oKr6N3Do9U0ajaHF-NKJnwgjMd2w9c"
            + "jz3_-kyNlxAr2v4IKhGNpmM5iIgOS1VZnOZ68m6_pbLBSp3nssTdlqvd0tIiTHU",
        "qi":
            "IYd7DHOhrWvxkwPQsRM2tOgrjbcrfvtQJipd-DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd_QJQ3ydy5cY7YIBi87w93IKLEdfnb"
            + "JtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp_gh6A5603k2-ZQwVK0JKSHuLFkuQ3U",
    ]

    static let rs256Token =
        "eyJhbGciOiJSUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr"
        + "7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--x"
        + "i12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_Ioyp"
        + "GlUPQGe77Rw"

    static let es256Token =
        "eyJhbGciOiJFUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    static let ecPublicKey = DERBuilder.p256PublicKey(
        x: Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU")!,
        y: Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0")!)

    /// RS256 (PKCS#1 v1.5) is deterministic, so signing A.2's input must give A.2's token exactly.
    @Test func rs256SignsAppendixA2Exactly() throws {
        let key = try SigningKey(der: DERBuilder.rsaPrivateKey(jwk: Self.rsaKey), algorithm: .rs256)
        let token = try CompactJWS.sign(header: Array(#"{"alg":"RS256"}"#.utf8), payload: Self.payload, with: key)
        #expect(token == Self.rs256Token)
    }

    @Test func rs256VerifiesAppendixA2WithThePublicHalf() throws {
        let key = try SigningKey(der: DERBuilder.rsaPrivateKey(jwk: Self.rsaKey), algorithm: .rs256).verifyingKey()
        let jws = try #require(CompactJWS(parsing: Self.rs256Token))
        #expect(jws.isSigned(by: key))
        #expect(jws.payload == Self.payload)
        #expect(jws.header == JOSEHeader(algorithm: "RS256"))
    }

    /// ECDSA signatures are randomised, so A.3 can only be checked by verifying the published one.
    @Test func es256VerifiesAppendixA3() throws {
        let key = try VerifyingKey(der: Self.ecPublicKey, algorithm: .es256)
        let jws = try #require(CompactJWS(parsing: Self.es256Token))
        #expect(jws.isSigned(by: key))
        #expect(jws.payload == Self.payload)
    }

    @Test func aChangedByteInAnyPartFailsVerification() throws {
        let key = try VerifyingKey(der: Self.ecPublicKey, algorithm: .es256)
        let parts = Self.es256Token.split(separator: ".").map(String.init)
        let otherPayload = Base64URL.encode(Array(#"{"iss":"joe","exp":1300819381}"#.utf8))
        let otherSignature = Base64URL.encode(Base64URL.decode(parts[2])!.map { $0 ^ 0x01 })
        for token in [
            [parts[0], otherPayload, parts[2]].joined(separator: "."),
            [parts[0], parts[1], otherSignature].joined(separator: "."),
        ] {
            let jws = try #require(CompactJWS(parsing: token))
            #expect(!jws.isSigned(by: key))
        }
    }

    /// The header's `alg` must be the key's: an RS256 header never passes an ES256 key's check,
    /// even over a signature that would verify.
    @Test func aHeaderNamingAnotherAlgorithmIsRefused() throws {
        let key = try VerifyingKey(der: Self.ecPublicKey, algorithm: .es256)
        let parts = Self.es256Token.split(separator: ".").map(String.init)
        let relabelled = [Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)), parts[1], parts[2]]
        let jws = try #require(CompactJWS(parsing: relabelled.joined(separator: ".")))
        #expect(!jws.isSigned(by: key))
    }

    @Test(arguments: [
        "", "a.b", "a.b.c.d", "eyJhbGciOiJFUzI1NiJ9.e30", "e30.e30.AA",  // header without alg
        "eyJhbGciOiJFUzI1NiJ9=.e30.AA", "bm90IGpzb24.e30.AA",  // padding; header not JSON
    ])
    func malformedCompactFormsAreRefused(text: String) {
        #expect(CompactJWS(parsing: text) == nil)
    }
}
