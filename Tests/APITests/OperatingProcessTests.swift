import Foundation
import Postgres
import RegistryCore
import RegistryCrypto
import Store
import TestSupport
import Testing

/// `serve` as an operator deploys it: secrets from files, a master key checked at start, the
/// drain before the listener closes, an operations port, and listening while migrating.
@Suite("Operating device-registry")
struct OperatingProcessTests {
    /// A file holding `text`, removed by the caller.
    static func file(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        return url
    }

    static func post(_ port: Int, _ path: String, key: String, body: String) async throws -> TestResponse {
        let client = try await HTTPTestClient.connect(port: port)
        let response = try await client.request(
            "POST", path, headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
            body: body)
        await client.close()
        return response
    }

    @Test func everySecretMayComeFromAFileAndServeHelpListsThem() async throws {
        let help = try await RegistryProcess.run(["serve", "--help"], environment: [:])
        let text = help.stdout.joined(separator: "\n")
        for name in [
            "REGISTRY_MASTER_KEY", "REGISTRY_OLD_MASTER_KEYS", "REGISTRY_ADMIN_KEY", "DIALSTACK_WEBHOOK_SECRET",
            "DATABASE_URL", "DATABASE_LISTEN_URL", "DATABASE_READ_URL",
        ] {
            #expect(text.contains("\(name) (or \(name)_FILE)") || text.contains("\(name)_FILE"), "\(name)")
        }

        let database = try await TestDatabase.create()
        let admin = try APIKeySecret.generate().value
        // As Kubernetes and Docker write them: a trailing line break, which is not part of the value.
        let files = try [
            ("DATABASE_URL_FILE", database.url), ("REGISTRY_ADMIN_KEY_FILE", admin),
            ("REGISTRY_MASTER_KEY_FILE", try MasterKey.generate().base64url),
            ("DIALSTACK_WEBHOOK_SECRET_FILE", "whsec_test"),
        ].map { ($0.0, try Self.file($0.1 + "\n")) }
        defer { for (_, url) in files { try? FileManager.default.removeItem(at: url) } }
        let (server, port) = try await ProcessTests.serve(
            "", Dictionary(uniqueKeysWithValues: files.map { ($0.0, $0.1.path) }).merging(["DATABASE_URL": ""]) { $1 })
        #expect(try await ProcessTests.get(port, "/v1/keys", key: admin).status == 200)
        // Configured, so an unsigned call is refused as unsigned (401), not as unconfigured (503).
        #expect(try await Self.post(port, "/v1/webhooks/dialstack", key: admin, body: "{}").status == 401)
        #expect(server.stdout.contains { $0.contains("provider credentials are sealed") })
        let logs = (server.stdout + server.stderr).joined(separator: "\n")
        #expect(!logs.contains(admin))
        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(15))
        await database.drop()
    }

    @Test func aSecretSetBothWaysStopsTheStartWithOneClearLine() async throws {
        let file = try Self.file("drk_" + String(repeating: "A", count: 43))
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await RegistryProcess.run(
            ["serve"],
            environment: [
                "DATABASE_URL": "postgresql://127.0.0.1:1/none", "PORT": "0",
                "REGISTRY_ADMIN_KEY": "drk_" + String(repeating: "B", count: 43), "REGISTRY_ADMIN_KEY_FILE": file.path,
            ], timeout: .seconds(20))
        #expect(run.code != 0)
        let errors = run.stderr.filter { !$0.isEmpty }
        #expect(errors.count == 1 && errors[0].contains("REGISTRY_ADMIN_KEY and REGISTRY_ADMIN_KEY_FILE"), "\(errors)")
    }

    /// Two providers with credentials sealed under different master keys: started with a key
    /// that opens neither, `serve` refuses; with one that opens one, it serves, ready, and lists
    /// the other as unhealthy with the reason, which names no secret.
    @Test func theMasterKeyIsTriedOnTheStoredCredentialsAtStart() async throws {
        let database = try await TestDatabase.create()
        let (keyA, keyB, wrong) = (try MasterKey.generate(), try MasterKey.generate(), try MasterKey.generate())
        let p8 = try Self.file(try SigningKey.generate(.es256).pkcs8PEM())
        defer { try? FileManager.default.removeItem(at: p8) }
        for (provider, key) in [("ios", keyA), ("voip", keyB)] {
            let environment = ["DATABASE_URL": database.url, "REGISTRY_MASTER_KEY": key.base64url]
            let added = try await RegistryProcess.run(
                ["providers", "add", provider, "--service", "apns", "--topic", "com.example.\(provider)"],
                environment: environment)
            #expect(added.code == 0, "\(added.stderr)")
            let stored = try await RegistryProcess.run(
                [
                    "providers", "set-credentials", provider, "--p8", p8.path, "--key-id", "XYZ987WVU6", "--team-id",
                    "ABCDE12345",
                ], environment: environment)
            #expect(stored.code == 0, "\(stored.stderr)")
        }

        let refused = try await RegistryProcess.run(
            ["serve"],
            environment: [
                "DATABASE_URL": database.url, "PORT": "0", "SHUTDOWN_DRAIN_SECONDS": "0",
                "REGISTRY_MASTER_KEY": wrong.base64url,
            ], timeout: .seconds(30))
        #expect(refused.code != 0)
        #expect(refused.stderr.joined().contains("REGISTRY_MASTER_KEY opens none of the 2 stored"), "\(refused.stderr)")

        let admin = try APIKeySecret.generate().value
        let (server, port) = try await ProcessTests.serve(
            database.url, ["REGISTRY_MASTER_KEY": keyA.base64url, "REGISTRY_ADMIN_KEY": admin])
        let device = #"{"user_id":"bob","provider":"voip","type":"voip","token":"\#(Tokens.apns(2))"}"#
        #expect(try await Self.post(port, "/v1/devices", key: admin, body: device).status == 201)
        for _ in 1...2 {
            let push = #"{"user_ids":["bob"],"apns":{"push_type":"voip","payload":{"aps":{}}}}"#
            let pushed = try await Self.post(port, "/v1/push", key: admin, body: push)
            #expect(pushed.status == 200 && pushed.body.contains("CredentialsUnreadable"), "\(pushed.body)")
        }
        let ready = try await ProcessTests.get(port, "/readyz")
        #expect(ready.status == 200)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(ready.body.utf8)) as? [String: Any])
        let unhealthy = try #require(body["unhealthy_providers"] as? [[String: String]])
        #expect(unhealthy.map { $0["name"] } == ["voip"])
        #expect(unhealthy.first?["reason"]?.contains("not configured") == true, "\(unhealthy)")
        #expect(!ready.body.contains(keyB.base64url) && !ready.body.contains("PRIVATE"))
        let samples = PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)
        #expect(samples[#"push_provider_unhealthy{provider="voip"}"#] == 1)
        #expect(samples[#"push_provider_unhealthy{provider="ios"}"#] == 0, "present from start")
        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(15))
        #expect(server.stdout.count { $0.contains("the provider cannot send") } == 1, "logged once, not per push")
        await database.drop()
    }

    /// SIGTERM: /readyz answers 503 "draining" for the drain while the port still serves, then
    /// the listener closes and the process exits 0.
    @Test func sigtermDrainsReadinessBeforeTheListenerCloses() async throws {
        let database = try await TestDatabase.create()
        let (server, port) = try await ProcessTests.serve(database.url, ["SHUTDOWN_DRAIN_SECONDS": "2"])
        #expect(try await ProcessTests.get(port, "/readyz").status == 200)
        server.signal(SIGTERM)
        var draining: TestResponse?
        try await TestSupport.waitUntil("/readyz turning 503 while the port is open", within: .seconds(5)) {
            let ready = try await ProcessTests.get(port, "/readyz")
            if ready.status == 503 { draining = ready }
            return draining != nil
        }
        let answer = try #require(draining)
        #expect(answer.body.contains("draining"))
        #expect(answer.header("Retry-After") != nil)
        #expect(try await ProcessTests.get(port, "/healthz").status == 200, "still serving during the drain")
        try await server.waitForExit(within: .seconds(20))
        #expect(server.exitCode == 0)
        await #expect(throws: (any Error).self) { _ = try await ProcessTests.get(port, "/healthz") }
        await database.drop()
    }

    /// `--ops-port`: /metrics and /readyz there and not on the public port; /healthz on both.
    @Test func theOperationsPortServesMetricsAndReadinessApart() async throws {
        let database = try await TestDatabase.create()
        let (server, port) = try await ProcessTests.serve(database.url, ["OPS_PORT": "0"])
        let ops = try await ProcessTests.listeningPort(server, listener: "ops")
        #expect(ops != port)
        for path in ["/healthz", "/readyz", "/metrics"] {
            #expect(try await ProcessTests.get(ops, path).status == 200, "\(path) on the ops port")
        }
        #expect(try await ProcessTests.get(port, "/healthz").status == 200)
        #expect(try await ProcessTests.get(port, "/openapi.yaml").status == 200)
        for path in ["/readyz", "/metrics"] {
            #expect(try await ProcessTests.get(port, path).status == 404, "\(path) on the public port")
        }
        #expect(try await ProcessTests.get(ops, "/v1/providers").status == 404)
        let metrics = try await ProcessTests.get(ops, "/metrics").body
        let samples = PrometheusText.samples(metrics)
        for name in ["process_resident_memory_bytes", "process_open_fds", "process_max_fds"] {
            #expect(samples[name] ?? 0 > 0, "\(name)")
        }
        #expect(samples["process_cpu_seconds_total"] != nil)
        #expect(metrics.contains("# TYPE process_cpu_seconds_total counter"))
        // JSON logs write numbers as numbers, so log queries can compare them.
        let access = try #require(
            server.stdout.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .first { $0["route"] as? String == "/openapi.yaml" })
        #expect(access["status"] is NSNumber && (access["status"] as? Int) == 200, "\(access)")
        #expect(access["duration_ms"] is NSNumber, "\(access)")
        let healthcheck = try await RegistryProcess.run(["healthcheck", "--port", "\(ops)"], environment: [:])
        #expect(healthcheck.code == 0)
        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(15))
        await database.drop()
    }

    /// A long transaction holds a lock on `devices` while `serve` starts with a migration that
    /// alters it. The server listens at once (/healthz 200, /readyz 503 "migrating", other routes
    /// 503 with Retry-After); the migration gives up within its lock timeout and retries, so
    /// registrations through the database (another instance's) go through meanwhile; when the
    /// transaction ends, it applies and the server is ready.
    @Test func servesWhileAMigrationWaitsForALockAndRetries() async throws {
        let database = try await TestDatabase.create()
        let migrations = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID())")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: migrations) }
        let shipped = try TestSupport.repositoryMigrations()
        for migration in shipped {
            try migration.sql.write(
                to: migrations.appendingPathComponent(
                    String(format: "%04d_%@.sql", migration.version, migration.name)),
                atomically: true, encoding: .utf8)
        }
        try "ALTER TABLE devices ADD COLUMN migration_lock_test text;".write(
            to: migrations.appendingPathComponent(String(format: "%04d_lock_test.sql", shipped.count + 1)),
            atomically: true, encoding: .utf8)

        let lock = try await HeldLock.hold("SELECT count(*) FROM devices", url: database.url)
        let result = await Result.of {
            let (server, port) = try await ProcessTests.serve(
                database.url,
                ["MIGRATIONS_DIR": migrations.path, "MIGRATION_LOCK_TIMEOUT_MS": "200", "LOG_LEVEL": "info"],
                waitForSetup: false)
            _ = try await server.waitForLine { $0.contains("gave up waiting for a lock") }
            #expect(try await ProcessTests.get(port, "/healthz").status == 200)
            let ready = try await ProcessTests.get(port, "/readyz")
            #expect(ready.status == 503 && ready.body.contains("migrating"), "\(ready.body)")
            let starting = try await ProcessTests.get(
                port, "/v1/providers", key: "drk_" + String(repeating: "A", count: 43))
            #expect(starting.status == 503 && starting.header("Retry-After") != nil)

            // Another instance's registration, through the store, while the migration retries:
            // queued behind its ALTER TABLE at most for the lock timeout, within its own 1 s
            // statement timeout.
            let pool = PostgresPool(configuration: PostgresConfiguration(url: database.url), logger: .init(label: "x"))
            let registered = await Result.of {
                let provider = try ProviderName("ios")
                _ = try await ProviderStore(pool: pool).put(
                    try Provider(name: provider, service: .apns, topic: "com.x"))
                return try await DeviceStore(pool: pool).register(
                    try DeviceRegistration(
                        userID: try UserID("carol"), provider: provider,
                        token: try PushToken(type: .apns, raw: Tokens.apns(3))))
            }
            await pool.shutdown()
            #expect(try registered.get().result == .created)
            try await TestSupport.waitUntil("the migration retrying") {
                server.stdout.count(where: { $0.contains("gave up waiting for a lock") }) >= 2
            }

            try await lock.release()
            _ = try await server.waitForLine { $0.contains("database setup complete") }
            #expect(try await ProcessTests.get(port, "/readyz").status == 200)
            server.signal(SIGTERM)
            try await server.waitForExit(within: .seconds(15))
        }
        try? await lock.release()  // after a failure; a second release does nothing
        await database.drop()
        try result.get()
    }
}
