import CallPush
import HTTPServer
import Logging
import PushEngine
import Store

/// The DeviceRegistry HTTP API: every route, wired to the stores it is handed. Knows HTTP only
/// through the HTTPServer layer's Router and the database only through the stores, in domain
/// terms; readiness and key revocations reach it from whoever owns the database.
public struct RegistryAPI: Sendable {
    public struct Configuration: Sendable {
        /// Body limit of `POST /v1/devices/batch` (1,000 registrations).
        public var batchBodyLimit = 1024 * 1024
        /// Bad keys one client address may present per window before it is answered 429.
        public var badKeyLimit = 20
        public var badKeyWindow = Duration.seconds(60)
        /// Load balancers whose `Forwarded` / `X-Forwarded-For` name the client the limiter counts.
        public var trustedProxies = TrustedProxies.none
        /// The text served at `/openapi.yaml`.
        public var openAPIDocument = ""
        /// `DIALSTACK_WEBHOOK_SECRET`: checks the DialStack webhook's signatures; nil answers the
        /// webhook 503, saying how to configure it.
        public var dialStackSignature: DialStackSignature?
        public init() {}
    }

    let context: APIContext
    let operational: OperationalRoutes
    let keyCache: KeyCache
    let batchBodyLimit: Int
    let dialStackSignature: DialStackSignature?

    /// `isReady` answers `/readyz`: whether the database answers with the schema this build
    /// expects; `state` says whether the instance is still setting up or already draining.
    /// `engine` does the sending, call events and push jobs; whoever wires the process runs it.
    public init(
        devices: DeviceStore, providers: ProviderStore, credentials: ProviderCredentialStore, keys: APIKeyStore,
        engine: Engine, isReady: @escaping @Sendable () async -> Bool,
        state: ServingState = ServingState(), configuration: Configuration,
        logger: Logger,
        metricsText: @escaping @Sendable () -> String
    ) {
        keyCache = KeyCache()
        context = APIContext(
            devices: devices, providers: providers, credentialStore: credentials, keys: keys, engine: engine,
            authenticator: Authenticator(
                keys: keys,
                limiter: BadKeyLimiter(limit: configuration.badKeyLimit, window: configuration.badKeyWindow),
                cache: keyCache, trustedProxies: configuration.trustedProxies),
            events: engine.events, logger: logger)
        batchBodyLimit = configuration.batchBodyLimit
        dialStackSignature = configuration.dialStackSignature
        operational = OperationalRoutes(
            isReady: isReady, state: state, unhealthyProviders: { await engine.unhealthyProviders },
            certificateExpiries: engine.certificateExpiries,
            openAPIDocument: configuration.openAPIDocument,
            metricsText: {
                // The push gauges (open connections and streams, pushes in flight) are read at
                // each scrape, so they fall when nothing is being sent as well as rise.
                await engine.recordPushStatistics()
                return metricsText()
            })
    }

    /// Feed `APIKeyChanges` here. Live keys are cached only while revocations are being heard;
    /// until then, and whenever the feed is interrupted, every request reads its key from the
    /// database.
    @Sendable public func keysChanged(_ event: APIKeyChanges.Event) {
        keyCache.handle(event)
    }

    /// Deletes the import result files a crashed process left behind; call once before serving.
    public static func removeLeftoverFiles() {
        ResultFile.removeLeftovers()
    }

    /// Every route; with `operationsApart`, `/readyz` and `/metrics` are left to
    /// `operationsRouter()`, for a listener of their own. Until the database is set up, routes
    /// other than the operational ones answer 503 (`ServingState.migrating`).
    public func router(operationsApart: Bool = false) -> Router {
        var router = Router()
        operational.addHealth(to: &router)
        operational.addContract(to: &router)
        if !operationsApart { operational.addReadinessAndMetrics(to: &router) }
        context.addDeviceRoutes(to: &router)
        context.addUserDeviceRoutes(to: &router)
        context.addProviderRoutes(to: &router)
        context.addKeyRoutes(to: &router)
        context.addLifecycleRoutes(to: &router)
        context.addBulkRoutes(to: &router, batchBodyLimit: batchBodyLimit)
        context.addTransferRoutes(to: &router)
        context.addPushRoutes(to: &router)
        context.addCallEventRoutes(to: &router)
        context.addDialStackWebhookRoute(to: &router, signature: dialStackSignature)
        context.addPushJobRoutes(to: &router)
        let ungated: Set = ["/healthz", "/readyz", "/metrics", "/openapi.yaml"]
        return router.wrappingHandlers { ungated.contains($0.template) ? $0.handler : operational.gate($0) }
    }

    /// `/healthz`, `/readyz` and `/metrics`, for the operations listener.
    public func operationsRouter() -> Router {
        var router = Router()
        operational.addHealth(to: &router)
        operational.addReadinessAndMetrics(to: &router)
        return router
    }
}
