import CCrypto

/// What a PKCS#12 (`.p12`) archive holds: a private key and the certificate it belongs to, then
/// any others (the chain). Read with libcrypto, whose parser reports a key without its
/// certificate as an error rather than trapping. Archives exported by macOS's Keychain encrypt
/// the certificates with RC2, which OpenSSL 3 keeps in its `legacy` provider: it is loaded once,
/// when an archive needs it.
public struct PKCS12Archive: Sendable {
    /// DER certificates, the private key's own first.
    public let certificates: [[UInt8]]
    /// The private key, DER (the traditional RSA or EC structure). Secret: never log it.
    public let privateKeyDER: [UInt8]

    /// `password` nil or empty opens an archive exported without one.
    public init(der: [UInt8], password: String?) throws(PKCS12Error) {
        defer { ERR_clear_error() }
        let archive = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_PKCS12(nil, &cursor, buffer.count)
        }
        guard let archive else { throw .unreadable }
        defer { PKCS12_free(archive) }
        let password = password ?? ""
        if PKCS12_mac_present(archive) == 1 {
            let opens =
                PKCS12_verify_mac(archive, password, -1) == 1
                || (password.isEmpty && PKCS12_verify_mac(archive, nil, 0) == 1)
            guard opens else { throw .wrongPassword }
        }
        guard let parts = Self.parse(archive, password: password) ?? Self.parseWithLegacy(archive, password: password)
        else { throw .undecryptable }
        let (key, certificate, others) = parts
        defer {
            EVP_PKEY_free(key)
            X509_free(certificate)
            OPENSSL_sk_pop_free(others) { X509_free(OpaquePointer($0)) }
        }
        guard let key else { throw .noPrivateKey }
        guard let certificate else { throw .keyMatchesNoCertificate }
        var certificates = [Self.der(of: certificate)]
        for index in 0..<max(0, OPENSSL_sk_num(others)) {
            if let other = OPENSSL_sk_value(others, index) { certificates.append(Self.der(of: OpaquePointer(other))) }
        }
        let keyLength = i2d_PrivateKey(key, nil)
        var keyDER = [UInt8](repeating: 0, count: Int(max(0, keyLength)))
        let written = keyDER.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_PrivateKey(key, &cursor)
        }
        guard keyLength > 0, written == keyLength, certificates.allSatisfy({ !$0.isEmpty }) else { throw .unreadable }
        self.certificates = certificates
        privateKeyDER = keyDER
    }

    private typealias Parts = (key: OpaquePointer?, certificate: OpaquePointer?, others: OpaquePointer?)

    private static func parse(_ archive: OpaquePointer, password: String) -> Parts? {
        var key: OpaquePointer?
        var certificate: OpaquePointer?
        var others: OpaquePointer?
        guard PKCS12_parse(archive, password, &key, &certificate, &others) == 1 else { return nil }
        return (key, certificate, others)
    }

    private static func parseWithLegacy(_ archive: OpaquePointer, password: String) -> Parts? {
        guard legacyLoaded else { return nil }
        ERR_clear_error()
        return parse(archive, password: password)
    }

    /// Loading any provider explicitly stops libcrypto loading `default` on its own: both go.
    private static let legacyLoaded: Bool = {
        OSSL_PROVIDER_load(nil, "default") != nil && OSSL_PROVIDER_load(nil, "legacy") != nil
    }()

    private static func der(of certificate: OpaquePointer) -> [UInt8] {
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { return [] }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_X509(certificate, &cursor)
        }
        return written == length ? der : []
    }
}
