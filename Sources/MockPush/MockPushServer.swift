import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import RegistryCore
import RegistryCrypto

/// A stand-in for APNs and FCM (with Google's OAuth token endpoint) on one TLS port speaking
/// HTTP/2 (ALPN `h2`). It verifies credentials as the real services do, records every request,
/// and answers whatever it is scripted to. Tests run it in-process; the `mock-push` executable
/// runs it for local setups.
public final class MockPushServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port; read it back from `port`.
        public var port: Int
        /// PEM files: the server certificate (then any intermediates) and its private key.
        public var certificateChainFile: String
        public var privateKeyFile: String
        /// The SETTINGS_MAX_CONCURRENT_STREAMS this server announces (APNs announces 1,000 or
        /// fewer); a low value makes a client open more connections.
        public var maximumConcurrentStreams: Int
        /// PEM CA certificates whose client certificates the server accepts: it then asks every
        /// client for one, refuses the handshake of one it does not trust (as APNs does), and
        /// takes an APNs request without a provider token from a connection that presented one
        /// (certificate authentication). Nil asks for none.
        public var clientCAFile: String?

        public init(
            host: String = "127.0.0.1", port: Int = 0, certificateChainFile: String, privateKeyFile: String,
            maximumConcurrentStreams: Int = 1000, clientCAFile: String? = nil
        ) {
            self.clientCAFile = clientCAFile
            self.host = host
            self.port = port
            self.certificateChainFile = certificateChainFile
            self.privateKeyFile = privateKeyFile
            self.maximumConcurrentStreams = maximumConcurrentStreams
        }
    }

    private let state: MockPushState
    private let channel: any Channel
    /// The bound port.
    public let port: Int

    private init(state: MockPushState, channel: any Channel) {
        self.state = state
        self.channel = channel
        port = channel.localAddress?.port ?? 0
    }

    public static func start(
        _ configuration: Configuration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> MockPushServer {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(configuration.certificateChainFile).map {
                .certificate($0)
            },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: configuration.privateKeyFile, format: .pem)))
        tls.applicationProtocols = ["h2"]
        if let clientCAFile = configuration.clientCAFile {
            // Optional, as the port serves FCM and token-authenticated APNs too; but a client
            // certificate that is presented must verify.
            tls.certificateVerification = .optionalVerification
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(clientCAFile))
        }
        let sslContext = try NIOSSLContext(configuration: tls)
        var http2 = NIOHTTP2Handler.ConnectionConfiguration()
        http2.initialSettings =
            nioDefaultSettings.filter { $0.parameter != .maxConcurrentStreams } + [
                HTTP2Setting(parameter: .maxConcurrentStreams, value: configuration.maximumConcurrentStreams)
            ]
        let connectionConfiguration = http2
        let state = MockPushState()
        let router = MockRouter(state: state)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = state.connectionOpened()
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: connectionConfiguration,
                        streamConfiguration: NIOHTTP2Handler.StreamConfiguration()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            // Streams open after the handshake, on the connection's event loop.
                            let peer = try channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
                                .peerCertificate
                            try stream.pipeline.syncOperations.addHandler(
                                MockStreamHandler(
                                    router: router, connection: connection,
                                    clientCertificateTopics: peer.map(Self.topics(of:))))
                        }
                    }
                }
            }
            .bind(host: configuration.host, port: configuration.port).get()
        return MockPushServer(state: state, channel: channel)
    }

    /// The APNs topics a client certificate covers (Apple's extension; none without it).
    private static func topics(of certificate: NIOSSLCertificate) -> [String] {
        let oid = NIOSSLObjectIdentifier(APNsCertificateTopics.extensionOID)
        return certificate._extensions.first { $0.objectIdentifier == oid }
            .flatMap { APNsCertificateTopics.parse($0.data.withUnsafeBufferPointer { Array($0) }) } ?? []
    }

    /// Returns when the listening socket closes (after `shutdown()`).
    public func waitUntilClosed() async throws {
        try await channel.closeFuture.get()
    }

    /// Stops accepting and closes the listening socket; open connections close with the
    /// event loop group.
    public func shutdown() async throws {
        try await channel.close()
    }

    /// Provider tokens with `kid` = `keyID` and `iss` = `teamID` must be signed by `publicKey`.
    public func registerAPNsKey(teamID: String, keyID: String, publicKey: VerifyingKey) {
        state.registerAPNsKey(teamID: teamID, keyID: keyID, publicKey: publicKey)
    }

    /// OAuth assertions with `iss` = `clientEmail` must be signed by `publicKey`; its access
    /// tokens may send to `projectID`.
    public func registerFCMAccount(clientEmail: String, projectID: String, publicKey: VerifyingKey) {
        state.registerFCMAccount(clientEmail: clientEmail, projectID: projectID, publicKey: publicKey)
    }

    /// APNs `token` is a PushKit (`voip`) or alert (`apns`) token: a push of the other kind is
    /// answered 400 `DeviceTokenNotForTopic`, as Apple does. Unregistered tokens take any kind.
    public func registerToken(_ token: String, type: TokenType) {
        state.registerToken(token, type: type)
    }

    /// Queues `reply` for the next matching request(s), after the credential check.
    public func script(_ reply: MockReply) {
        state.script(reply)
    }

    public func clearReplies() {
        state.clearReplies()
    }

    public var recordedRequests: [RecordedRequest] { state.recordedRequests }

    public func clearRecordedRequests() {
        state.clearRecordedRequests()
    }

    public var statistics: MockPushStatistics { state.statistics }
}
