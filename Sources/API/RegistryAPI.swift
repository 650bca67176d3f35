import HTTPServer
import Logging
import Postgres
import Store

/// The DeviceRegistry HTTP API: every route, wired to the stores. Knows HTTP only through the
/// HTTPServer layer's Router and the database only through the stores and the pool.
public struct RegistryAPI: Sendable {
    public struct Configuration: Sendable {
        /// Most devices one user may have; past it the least recently seen are evicted.
        public var userDeviceCap = DeviceStore.defaultUserDeviceCap
        /// Body limit of `POST /v1/devices/batch` (1,000 registrations).
        public var batchBodyLimit = 1024 * 1024
        /// Bad keys one client address may present per window before it is answered 429.
        public var badKeyLimit = 20
        public var badKeyWindow = Duration.seconds(60)
        /// Load balancers whose `Forwarded` / `X-Forwarded-For` name the client the limiter counts.
        public var trustedProxies = TrustedProxies.none
        /// The text served at `/openapi.yaml`.
        public var openAPIDocument = ""
        public init() {}
    }

    let context: APIContext
    let operational: OperationalRoutes
    let keyChanges: PostgresListener
    let batchBodyLimit: Int

    public init(
        pool: PostgresPool, migrator: Migrator, configuration: Configuration, logger: Logger,
        metricsText: @escaping @Sendable () -> String
    ) {
        let keys = APIKeyStore(pool: pool)
        let cache = KeyCache()
        keyChanges = PostgresListener(
            configuration: pool.configuration, channel: APIKeyStore.changesChannel, logger: logger,
            onEvent: cache.handle)
        context = APIContext(
            devices: DeviceStore(pool: pool, userDeviceCap: configuration.userDeviceCap),
            providers: ProviderStore(pool: pool), keys: keys,
            authenticator: Authenticator(
                keys: keys,
                limiter: BadKeyLimiter(limit: configuration.badKeyLimit, window: configuration.badKeyWindow),
                cache: cache, trustedProxies: configuration.trustedProxies),
            events: RegistryEvents(), logger: logger)
        batchBodyLimit = configuration.batchBodyLimit
        operational = OperationalRoutes(
            pool: pool, migrator: migrator, openAPIDocument: configuration.openAPIDocument, metricsText: metricsText)
    }

    /// The API's background work, until the task is cancelled: deleting the import result files a
    /// crashed process left, then listening for key revocations made by other processes, which
    /// lets live keys be cached (until then, and whenever the listener is down, every request
    /// reads its key from the database).
    public func run() async {
        ResultFile.removeLeftovers()
        await keyChanges.run()
    }

    public func router() -> Router {
        var router = Router()
        operational.add(to: &router)
        context.addDeviceRoutes(to: &router)
        context.addUserDeviceRoutes(to: &router)
        context.addProviderRoutes(to: &router)
        context.addKeyRoutes(to: &router)
        context.addLifecycleRoutes(to: &router)
        context.addBulkRoutes(to: &router, batchBodyLimit: batchBodyLimit)
        context.addTransferRoutes(to: &router)
        return router
    }
}
