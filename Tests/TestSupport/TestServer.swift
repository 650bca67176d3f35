import API
import Foundation
import HTTPServer
import Logging
import NIOCore
import Postgres
import PushDelivery
import PushEngine
import RegistryCore
import RegistryCrypto
import Store

/// The real server on port 0, over a fresh database cloned from the migrated template, with an
/// admin key. Integration tests talk HTTP to it over loopback; `withTestServer` always stops it.
public final class TestServer: Sendable {
    /// Nil when the server runs on a database the test brought (`Options.databaseURL`).
    public let database: TestDatabase?
    public let pool: PostgresPool
    /// The server's own pool when it goes through PgBouncer (`TestSupport.throughPooler`); else `pool`.
    private let servingPool: PostgresPool?
    public let port: Int
    public let adminKey: String
    public let logs: CapturedLogs
    private let serving: Task<Void, any Error>

    public struct Options: Sendable {
        public var api = RegistryAPI.Configuration()
        public var pushJobs = PushJobSettings()
        public var userDeviceCap = DeviceStore.defaultUserDeviceCap
        public var http = HTTPServerConfiguration(port: 0)
        public var postgres: (@Sendable (inout PostgresConfiguration) -> Void)? = nil
        /// A database of the test's own (a `ThrowawayCluster`'s); migrated here, never dropped.
        public var databaseURL: String? = nil
        /// Seals provider credentials; nil is a server started without `REGISTRY_MASTER_KEY`.
        public var sealer: SecretSealer? = TestServer.sealer
        /// `PUSH_CA_FILE`: the mock push server's test CA.
        public var pushCAFile: String? = nil
        /// A PING may wait 5 s, not 1: under a loaded test run the in-process mock can take
        /// seconds to answer, and a live connection must not be taken for dead.
        public var sender = SenderConfiguration(pingTimeout: .seconds(5))
        /// Whether the server works off push jobs (off by default: other suites need no poller).
        public var pushJobWorkers = false
        public init() {}
    }

    private init(
        database: TestDatabase?, pool: PostgresPool, servingPool: PostgresPool?, port: Int, adminKey: String,
        logs: CapturedLogs, serving: Task<Void, any Error>
    ) {
        self.database = database
        self.pool = pool
        self.servingPool = servingPool
        self.port = port
        self.adminKey = adminKey
        self.logs = logs
        self.serving = serving
    }

    public static func start(_ options: Options = Options()) async throws -> TestServer {
        let database = options.databaseURL == nil ? try await TestDatabase.create() : nil
        let logs = CapturedLogs()
        let logger = logs.logger(label: "test-server")
        var postgres = PostgresConfiguration(url: options.databaseURL ?? database!.url)
        postgres.poolSize = 4
        options.postgres?(&postgres)
        let pool = PostgresPool(configuration: postgres, logger: logger)
        let servingPool = TestSupport.throughPooler(postgres).map { PostgresPool(configuration: $0, logger: logger) }
        let served = servingPool ?? pool
        let migrator = Migrator(migrations: try Migrator.load(directory: RepositoryPaths.migrations))
        if options.databaseURL != nil { try await migrator.migrate(pool) }
        var api = options.api
        api.openAPIDocument = try String(contentsOf: RepositoryPaths.openAPI, encoding: .utf8)
        let devices = DeviceStore(pool: served, userDeviceCap: options.userDeviceCap)
        let providers = ProviderStore(pool: served)
        let credentials = ProviderCredentialStore(pool: served, sealer: options.sealer)
        var pushJobs = options.pushJobs
        pushJobs.runsWorkers = options.pushJobWorkers
        let engine = Engine(
            devices: devices, providers: providers, credentials: credentials, callEvents: CallEventStore(pool: served),
            pushJobs: PushJobStore(pool: served),
            senders: try PushSenderFactory(additionalCAFile: options.pushCAFile, configuration: options.sender),
            settings: pushJobs, logger: logger)
        let registry = RegistryAPI(
            devices: devices, providers: providers, credentials: credentials, keys: APIKeyStore(pool: served),
            engine: engine, isReady: { await migrator.isReady(served) }, configuration: api,
            logger: logger, metricsText: { "" })
        let keyChanges = APIKeyChanges(configuration: postgres, logger: logger, onEvent: registry.keysChanged)
        let server = HTTPServer(configuration: options.http, router: registry.router(), logger: logger)
        let serving = Task {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask { try await server.run() }
                group.addTask { await keyChanges.run() }
                // Cancelled by `stop`, it still lets its rings finish and closes its senders.
                group.addTask { await engine.run() }
            }
        }
        let port = try await server.localAddress.port ?? 0

        let secret = try APIKeySecret.generate()
        _ = try await APIKeyStore(pool: pool).create(name: "test-admin", scopes: [.admin], secretHash: secret.hashHex)
        return TestServer(
            database: database, pool: pool, servingPool: servingPool, port: port, adminKey: secret.value, logs: logs,
            serving: serving)
    }

    /// One master key for every test server, as one deployment has.
    public static let sealer = SecretSealer(current: try! MasterKey.generate())

    public func stop() async {
        serving.cancel()
        _ = await serving.result
        await servingPool?.shutdown()
        await pool.shutdown()
        await database?.drop()
    }

    public func client() async throws -> HTTPTestClient {
        try await HTTPTestClient.connect(host: "127.0.0.1", port: port)
    }

    /// A new key with `scopes`, made directly in the database.
    public func key(_ scopes: [APIKeyScope], name: String = "test") async throws -> (id: String, secret: String) {
        let secret = try APIKeySecret.generate()
        let record = try await APIKeyStore(pool: pool).create(name: name, scopes: scopes, secretHash: secret.hashHex)
        return (record.id, secret.value)
    }

    /// Adds a provider directly in the database.
    public func addProvider(_ name: String, service: PushService, topic: String? = nil, projectID: String? = nil)
        async throws
    {
        _ = try await ProviderStore(pool: pool).put(
            try Provider(name: try ProviderName(name), service: service, topic: topic, projectID: projectID))
    }
}

/// Starts a server, runs `body`, and stops the server whether `body` succeeds or throws.
public func withTestServer<T>(
    _ options: TestServer.Options = TestServer.Options(), _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start(options)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// Files of the repository the tests read, found from this source file's place.
public enum RepositoryPaths {
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let migrations = root.appendingPathComponent("Migrations")
    public static let openAPI = root.appendingPathComponent("openapi.yaml")
}
