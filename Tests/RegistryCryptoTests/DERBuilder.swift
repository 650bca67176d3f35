import Encodings

@testable import RegistryCrypto

/// Just enough DER to turn the RFC 7515 JWK numbers into key structures libcrypto reads.
enum DERBuilder {
    /// A non-negative INTEGER from big-endian magnitude bytes.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var body = Array(magnitude.drop { $0 == 0 })
        if body.isEmpty || body[0] & 0x80 != 0 { body.insert(0, at: 0) }
        return [0x02] + length(body.count) + body
    }

    static func sequence(_ elements: [[UInt8]]) -> [UInt8] {
        let body = elements.flatMap { $0 }
        return [0x30] + length(body.count) + body
    }

    /// RFC 8017 `RSAPrivateKey` (version 0, two primes).
    static func rsaPrivateKey(jwk: [String: String]) -> [UInt8] {
        let numbers = ["n", "e", "d", "p", "q", "dp", "dq", "qi"].map { Base64URL.decode(jwk[$0]!)! }
        return sequence([integer([0])] + numbers.map(integer))
    }

    /// SubjectPublicKeyInfo of an uncompressed P-256 point: the fixed algorithm prefix
    /// (id-ecPublicKey, prime256v1), then 0x04 || x || y as the BIT STRING.
    static func p256PublicKey(x: [UInt8], y: [UInt8]) -> [UInt8] {
        Hex.decode("3059301306072a8648ce3d020106082a8648ce3d03010703420004")! + x + y
    }

    private static func length(_ count: Int) -> [UInt8] {
        switch count {
        case ..<0x80: [UInt8(count)]
        case ..<0x100: [0x81, UInt8(count)]
        default: [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
        }
    }
}
