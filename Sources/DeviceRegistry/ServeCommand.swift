import API
import ArgumentParser
import CMalloc
import CallPush
import Foundation
import HTTPServer
import Logging
import Metrics
import NIOCore
import Postgres
import Prometheus
import PushDelivery
import PushEngine
import RegistryCrypto
import ServiceLifecycle
import Store

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Migrate the database and serve the HTTP API until SIGTERM or SIGINT.",
        discussion: """
            Every option falls back to the environment variable named in its help, then to its default. It listens at \
            once: while the database is set up (migrations), /healthz answers 200, /readyz 503 "migrating", and other \
            routes 503 with Retry-After.

            \(Secrets.help)
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup var http: HTTPOptions
    @OptionGroup var pushJobOptions: PushJobOptions

    @Option(
        help:
            "Most devices one user may have; registering past it evicts the least recently seen. (env: USER_DEVICE_CAP, default: 25)"
    )
    var userDeviceCap: Int?

    @Option(
        help:
            "Bad API keys one client address may present per minute before it is answered 429. (env: BAD_KEY_LIMIT, default: 20)"
    )
    var badKeyLimit: Int?

    @Flag(
        help: "Do not apply migrations at start; /readyz stays 503 until they are applied. (env: SKIP_MIGRATIONS=true)")
    var skipMigrations = false

    @Flag(
        help:
            "Start even when the database runs with fsync or synchronous_commit off, which can lose acknowledged writes. (env: ALLOW_UNSAFE_DURABILITY=true)"
    )
    var allowUnsafeDurability = false

    @Option(help: "Run the stale-device prune this often, e.g. 1d; off unless given. (env: PRUNE_EVERY)")
    var pruneEvery: String?

    @Option(
        help:
            "What the periodic prune deletes: devices not seen for this long. (env: PRUNE_NOT_SEEN_FOR, default: 270d)")
    var pruneNotSeenFor: String?

    @Option(
        help:
            "What the periodic prune deletes: call events (their history) older than this. (env: CALL_EVENTS_KEPT_FOR, default: 7d)"
    )
    var callEventsKeptFor: String?

    @Option(help: "An openapi.yaml to serve instead of the one compiled in. (env: OPENAPI_PATH, default: compiled in)")
    var openapiPath: String?

    @Option(
        help:
            "A PEM bundle of extra CA certificates trusted for outgoing push connections; the system roots stay. (env: PUSH_CA_FILE)"
    )
    var pushCaFile: String?

    @Option(
        help:
            "Pushes one provider may have in flight; more wait, each until its deadline. (env: PUSH_PROVIDER_CONCURRENCY, default: 256)"
    )
    var pushProviderConcurrency: Int?

    @Option(
        help:
            "The fraction of a provider's in-flight pushes background jobs may hold, 0–1. (env: PUSH_JOB_SHARE, default: 0.5)"
    )
    var pushJobShare: Double?

    func run() async throws {
        // glibc gives threads that allocate at once arenas of their own and keeps what is freed in
        // them: with the event loops and a thread per pool connection, one 1,000-item batch left
        // about 20 MiB resident. Two arenas keep the peak near 45 MiB at no measurable cost. An
        // operator's own MALLOC_ARENA_MAX wins.
        #if os(Linux)
            if ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil { mallopt(M_ARENA_MAX, 2) }
        #endif
        let logger = try logging.bootstrap()
        // Before anything makes a metric handle: one made earlier (the pool's) stays a no-op.
        let metrics = PrometheusCollectorRegistry()
        var metricsFactory = PrometheusMetricsFactory(registry: metrics)
        metricsFactory.durationHistogramBuckets = CallEventMetrics.durationBuckets
        MetricsSystem.bootstrap(metricsFactory)
        BuildInfo.record()
        let serverConfiguration = try http.configuration()
        var apiConfiguration = RegistryAPI.Configuration()
        let cap = try Setting.resolve(
            userDeviceCap, env: "USER_DEVICE_CAP", default: DeviceStore.defaultUserDeviceCap,
            valid: { (1...1000).contains($0) }, expected: "1–1000")
        apiConfiguration.badKeyLimit = try Setting.resolve(
            badKeyLimit, env: "BAD_KEY_LIMIT", default: apiConfiguration.badKeyLimit, valid: { $0 > 0 },
            expected: "a positive number")
        apiConfiguration.trustedProxies = try http.resolvedTrustedProxies()
        apiConfiguration.openAPIDocument = try ResourceLocator.openAPIDocument(
            override: Setting.optional(openapiPath, env: "OPENAPI_PATH"))
        apiConfiguration.dialStackSignature = try Self.dialStackSignature()
        let setup = DatabaseSetup(
            migrator: try database.migrator(),
            migrate: !(try Setting.resolve(skipMigrations ? true : nil, env: "SKIP_MIGRATIONS", default: false)),
            sessionConfiguration: try database.sessionConfiguration(),
            allowUnsafeDurability: try Setting.resolve(
                allowUnsafeDurability ? true : nil, env: "ALLOW_UNSAFE_DURABILITY", default: false),
            adminKeyHash: try DatabaseSetup.adminKeyHash(Secrets.value("REGISTRY_ADMIN_KEY")))
        let drain = try http.drain()
        let opsConfiguration = try http.opsConfiguration()
        let pruner = try pruneSchedule()
        let sealer = try MasterKeySetting.sealer()
        var senderConfiguration = SenderConfiguration()
        senderConfiguration.concurrency = try Setting.resolve(
            pushProviderConcurrency, env: "PUSH_PROVIDER_CONCURRENCY", default: senderConfiguration.concurrency,
            valid: { $0 >= 1 }, expected: "a positive number")
        senderConfiguration.bulkShare = try Setting.resolve(
            pushJobShare, env: "PUSH_JOB_SHARE", default: senderConfiguration.bulkShare,
            valid: { (0...1).contains($0) }, expected: "a fraction from 0 to 1")
        let pool = PostgresPool(configuration: try database.configuration(), logger: logger)
        // Listening starts at once; routes that need the database open when its setup is done.
        let state = ServingState(.migrating)
        // Every instance on the database signs one APNs provider token per key and renewal window.
        // Without a master key no credentials can be opened, so nothing is signed at all.
        let providerTokens = APNsProviderTokens(
            store: sealer.map {
                DatabaseProviderTokens(store: SharedProviderTokenStore(pool: pool, sealer: $0), logger: logger)
            })
        // One per process: the TLS setup every push connection uses, checked before serving.
        let senders: PushSenderFactory
        do {
            senders = try PushSenderFactory(
                additionalCAFile: Setting.optional(pushCaFile, env: "PUSH_CA_FILE"), configuration: senderConfiguration,
                providerTokens: providerTokens)
        } catch {
            throw ConfigurationError("PUSH_CA_FILE cannot be used: \(error)")
        }

        let processMetrics = ProcessMetrics()

        if let sealer {
            logger.info("provider credentials are sealed", metadata: ["master_key_id": "\(sealer.current.id)"])
        } else {
            logger.warning("REGISTRY_MASTER_KEY is not set: provider credentials cannot be stored or used")
        }
        // One of each per process: the device store's batch runners are what DB_WRITE_CONNECTIONS
        // and DB_READ_CONNECTIONS count.
        let readReplica = try database.readReplica().map { replica in
            ReadReplica(
                primary: pool, replica: PostgresPool(configuration: replica.configuration, logger: logger),
                maxLag: replica.maxLag, logger: logger)
        }
        let devices = DeviceStore(pool: pool, userDeviceCap: cap, readReplica: readReplica)
        let callEvents = CallEventStore(pool: pool)
        let pushJobs = PushJobStore(pool: pool)
        let providers = ProviderStore(pool: pool, readReplica: readReplica)
        let credentials = ProviderCredentialStore(pool: pool, sealer: sealer)
        let engine = Engine(
            devices: devices, providers: providers, credentials: credentials, callEvents: callEvents,
            pushJobs: pushJobs, senders: senders, settings: try pushJobOptions.settings(), logger: logger)
        let api = RegistryAPI(
            devices: devices, providers: providers, credentials: credentials, keys: APIKeyStore(pool: pool),
            engine: engine,
            isReady: { [migrator = setup.migrator] in await migrator.isReady(pool) }, state: state,
            configuration: apiConfiguration, logger: logger,
            metricsText: {
                processMetrics.record()
                return Self.exposition(metrics)
            })
        let keyChanges = APIKeyChanges(
            configuration: try database.sessionConfiguration(), logger: logger, onEvent: api.keysChanged)
        let listeners = Listeners(
            api: api, public: serverConfiguration, operations: opsConfiguration, logger: logger)
        RegistryAPI.removeLeftoverFiles()

        // The engine first, so it stops last: once the listeners have closed, no request can start
        // a push, and the engine lets what it still sends finish before it closes the senders.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] =
            [.init(service: engine)] + listeners.services + [
                .init(service: BackgroundWork { await keyChanges.run() })
            ]
        if let readReplica { services.append(.init(service: BackgroundWork { await readReplica.run() })) }
        let retention = PushJobRetention(store: pushJobs, keptFor: try pushJobOptions.retention())
        services.append(
            .init(
                service: PruneService(
                    devices: devices, callEvents: callEvents, schedule: pruner, pushJobs: retention, logger: logger)))
        // Shut down in reverse: the setup stops first, then the drain runs while the listeners
        // still answer, then they close.
        services.append(.init(service: DrainService(state: state, drain: drain, logger: logger)))
        let keyConfigured = sealer != nil
        services.append(
            .init(
                service: DatabaseSetupService(
                    setup: setup, pool: pool, state: state, logger: logger,
                    checks: { try await MasterKeyCheck.run(api: api, keyConfigured: keyConfigured, logger: logger) }),
                successTerminationBehavior: .ignore))
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        await readReplica?.replica.shutdown()
        await pool.shutdown()
        logger.info("stopped")
    }

    /// Without `--prune-every`, only call events and finished push jobs are pruned, hourly.
    private func pruneSchedule() throws -> PruneService.Schedule {
        let kept = Setting.optional(callEventsKeptFor, env: "CALL_EVENTS_KEPT_FOR") ?? PruneCommand.callEventsKeptFor
        let callEventsKeptFor = try PruneCommand.age(kept, option: "--call-events-kept-for")
        guard let every = Setting.optional(pruneEvery, env: "PRUNE_EVERY") else {
            return PruneService.Schedule(every: 3600, notSeenFor: nil, callEventsKeptFor: callEventsKeptFor)
        }
        let age = Setting.optional(pruneNotSeenFor, env: "PRUNE_NOT_SEEN_FOR") ?? "270d"
        return PruneService.Schedule(
            every: try PruneCommand.age(every, option: "--prune-every"),
            notSeenFor: try PruneCommand.age(age, option: "--prune-not-seen-for"),
            callEventsKeptFor: callEventsKeptFor)
    }

    /// `DIALSTACK_WEBHOOK_SECRET`, from the environment (or its `_FILE`) only (a secret has no
    /// place in a command line); nil when unset or empty.
    private static func dialStackSignature() throws -> DialStackSignature? {
        guard let secrets = try Secrets.value("DIALSTACK_WEBHOOK_SECRET") else { return nil }
        do {
            return try DialStackSignature(secrets: secrets)
        } catch {
            throw ConfigurationError("DIALSTACK_WEBHOOK_SECRET \(error.message)")
        }
    }

    private static func exposition(_ registry: PrometheusCollectorRegistry) -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
