import CCrypto

/// Converts ECDSA P-256 signatures between libcrypto's DER `ECDSA-Sig-Value` and the fixed
/// 64-byte `r || s` that JWS ES256 puts on the wire (RFC 7518 §3.4).
enum ECDSASignature {
    static let scalarLength = 32

    static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        let signature = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { return nil }
        defer { ECDSA_SIG_free(signature) }
        var raw = [UInt8](repeating: 0, count: 2 * scalarLength)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            return (
                BN_bn2binpad(ECDSA_SIG_get0_r(signature), base, Int32(scalarLength)),
                BN_bn2binpad(ECDSA_SIG_get0_s(signature), base + scalarLength, Int32(scalarLength))
            )
        }
        guard written == (Int32(scalarLength), Int32(scalarLength)) else { return nil }
        return raw
    }

    /// Nil unless `raw` is exactly 64 bytes.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * scalarLength, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, Int32(scalarLength), nil)
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + scalarLength, Int32(scalarLength), nil) }
        // set0 takes ownership of both numbers on success only.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
