import NIOSSL

/// The TLS setup for every outgoing push connection: the system's trusted roots, plus the CA
/// bundle in `PUSH_CA_FILE` when given (tests, proxies). Certificate and host name verification
/// are always on; ALPN offers only `h2`, which both push services require. An APNs provider
/// with certificate authentication gets a context of its own that presents its certificate.
public enum PushTLS {
    public struct CAFileError: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "PUSH_CA_FILE \(path) holds no PEM certificate that can be read" }
    }

    /// Throws `CAFileError` when the bundle cannot be read. The bundle is read here, not by the
    /// context: NIOSSL's context leaks its half-made SSL_CTX when it throws on a bad trust file.
    public static func makeContext(additionalCAFile: String?, identity: APNsClientCertificate? = nil) throws
        -> NIOSSLContext
    {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = .default
        if let additionalCAFile {
            let certificates = (try? NIOSSLCertificate.fromPEMFile(additionalCAFile)) ?? []
            guard !certificates.isEmpty else { throw CAFileError(path: additionalCAFile) }
            configuration.additionalTrustRoots = [.certificates(certificates)]
        }
        if let identity {
            configuration.certificateChain = identity.tlsIdentity.chain
            configuration.privateKey = identity.tlsIdentity.key
        }
        configuration.applicationProtocols = ["h2"]
        return try NIOSSLContext(configuration: configuration)
    }
}
