import NIOCore
import NIOPosix
import NIOSSL

/// Makes a provider's sender from its credentials: everything a sender needs besides them (the
/// TLS setup with `PUSH_CA_FILE`, the limits, the event loops, the process's APNs provider
/// tokens and where they are shared with other instances), made once per process, so the layers
/// above never touch TLS or HTTP/2.
public struct PushSenderFactory: Sendable {
    private let tls: NIOSSLContext
    private let additionalCAFile: String?
    private let configuration: SenderConfiguration
    private let providerTokens: APNsProviderTokens
    private let group: any EventLoopGroup
    /// The expiry of every certificate a sender was made with, for `/readyz` and `/metrics`.
    public let certificateExpiries = APNsCertificateExpiries()

    /// Throws when `additionalCAFile` cannot be read: a start-up error, not a send error.
    public init(
        additionalCAFile: String?, configuration: SenderConfiguration = SenderConfiguration(),
        providerTokens: APNsProviderTokens = .shared, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) throws {
        tls = try PushTLS.makeContext(additionalCAFile: additionalCAFile)
        self.additionalCAFile = additionalCAFile
        self.configuration = configuration
        self.providerTokens = providerTokens
        self.group = group
    }

    /// With `endpoint`, both APNs environments go there (each on its own connections). `budget`
    /// is the provider's, kept by the caller so a sender rebuilt for new credentials keeps it.
    /// The provider token's renewals run in `tasks`, the caller's, which waits for them at shutdown.
    public func apns(
        credentials: APNsCredentials, bundleID: String, endpoint: PushEndpoint?, budget: PushBudget,
        tasks: any BackgroundTasks
    ) -> APNsSender {
        APNsSender(
            credentials: credentials, bundleID: bundleID, production: endpoint ?? .apnsProduction,
            sandbox: endpoint ?? .apnsSandbox, tls: tls, providerTokens: providerTokens,
            configuration: configuration, budget: budget, tasks: tasks, group: group)
    }

    /// Certificate authentication: the sender's connections present `certificate`, whose expiry
    /// is recorded under `provider`. Throws when the TLS library will not take it.
    public func apns(
        certificate: APNsClientCertificate, provider: String, bundleID: String, endpoint: PushEndpoint?,
        budget: PushBudget
    ) throws -> APNsSender {
        let tls = try PushTLS.makeContext(additionalCAFile: additionalCAFile, identity: certificate)
        certificateExpiries.record(provider, notValidAfter: certificate.notValidAfter)
        return APNsSender(
            certificateTLS: tls, bundleID: bundleID, production: endpoint ?? .apnsProduction,
            sandbox: endpoint ?? .apnsSandbox, configuration: configuration, budget: budget, group: group)
    }

    /// The access token's exchanges run in `tasks`, the caller's, which waits for them at shutdown.
    public func fcm(account: FCMServiceAccount, endpoint: PushEndpoint?, budget: PushBudget, tasks: any BackgroundTasks)
        -> FCMSender
    {
        FCMSender(
            account: account, endpoint: endpoint ?? .fcm, tls: tls, configuration: configuration, budget: budget,
            tasks: tasks, group: group)
    }

    /// A provider's budget of in-flight pushes, by the configured limits.
    public func makeBudget() -> PushBudget { configuration.makeBudget() }
}
