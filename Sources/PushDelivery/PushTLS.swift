import NIOSSL

/// The TLS setup for every outgoing push connection: the system's trusted roots, plus the CA
/// bundle in `PUSH_CA_FILE` when given (tests, proxies). Certificate and host name verification
/// are always on; ALPN offers only `h2`, which both push services require.
public enum PushTLS {
    public static func makeContext(additionalCAFile: String?) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = .default
        if let additionalCAFile {
            configuration.additionalTrustRoots = [.file(additionalCAFile)]
        }
        configuration.applicationProtocols = ["h2"]
        return try NIOSSLContext(configuration: configuration)
    }
}
