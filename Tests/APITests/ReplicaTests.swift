import Foundation
import Postgres
import RegistryCore
import RegistryCrypto
import Store
import TestSupport
import Testing

/// `serve` with DATABASE_READ_URL on a real streaming replica (`pg_basebackup -R`): reads see this
/// instance's writes, go to the replica once it has caught up, to the primary when asked
/// (`?consistency=strong`), when it lags past the bound, or when it is gone.
@Suite("A read replica")
struct ReplicaTests {
    struct Deployment: Sendable {
        let primary: ThrowawayCluster
        let replica: StreamingReplica
        let server: RegistryProcess
        let port: Int
        let key: String
        /// Straight to the primary.
        let pool: PostgresPool

        func get(_ path: String) async throws -> TestResponse {
            try await ProcessTests.get(port, path, key: key)
        }

        func register(_ user: String, _ token: String) async throws -> Int {
            let client = try await HTTPTestClient.connect(port: port)
            let body = #"{"user_id":"\#(user)","provider":"ios","type":"apns","token":"\#(token)"}"#
            let response = await Result.of {
                try await client.request(
                    "POST", "/v1/devices",
                    headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")], body: body)
            }
            await client.close()
            return try response.get().status
        }

        /// How many reads each server has answered, from /metrics.
        func reads() async throws -> (replica: Double, primary: Double) {
            let samples = PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)
            return (
                samples[#"db_reads_total{server="replica"}"#] ?? 0, samples[#"db_reads_total{server="primary"}"#] ?? 0
            )
        }

        /// Whether a listing of `user` now goes to the replica.
        func readsFromTheReplica(_ user: String) async throws -> Bool {
            let before = try await reads().replica
            _ = try await get("/v1/users/\(user)/devices")
            return try await reads().replica > before
        }

        func lag() async throws -> Double? {
            PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)["db_replica_lag_seconds"]
        }

        func replicaUp() async throws -> Double? {
            PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)["db_replica_up"]
        }
    }

    static func withDeployment(_ body: (Deployment) async throws -> Void) async throws {
        let primary = try await ThrowawayCluster.start()
        let result = await Result.of {
            let replica = try await StreamingReplica.start(of: primary)
            let outcome = await Result.of {
                let (server, port) = try await ProcessTests.serve(
                    primary.url, ["DATABASE_READ_URL": replica.url, "DATABASE_READ_MAX_LAG_MS": "500"])
                let pool = PostgresPool(
                    configuration: PostgresConfiguration(url: primary.url, poolSize: 2),
                    logger: TestSupport.logger("replica"))
                let ran = await Result.of {
                    let secret = try APIKeySecret.generate()
                    _ = try await APIKeyStore(pool: pool).create(
                        name: "admin", scopes: [.admin], secretHash: secret.hashHex)
                    _ = try await ProviderStore(pool: pool).put(
                        try Provider(name: ProviderName("ios"), service: .apns, topic: "com.example.app"))
                    try await body(
                        Deployment(
                            primary: primary, replica: replica, server: server, port: port, key: secret.value,
                            pool: pool))
                }
                server.signal(SIGTERM)
                try? await server.waitForExit(within: .seconds(15))
                await pool.shutdown()
                try ran.get()
            }
            await replica.destroy()
            try outcome.get()
        }
        await primary.destroy()
        try result.get()
    }

    /// Polls `condition` for up to `timeout`.
    static func eventually(within timeout: Duration = .seconds(10), _ condition: () async throws -> Bool)
        async throws -> Bool
    {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func readsSeeTheirWritesUseTheCaughtUpReplicaAndStrongGoesToThePrimary() async throws {
        try await Self.withDeployment { deployment in
            for seed in 0..<20 {
                let token = Tokens.apns(3_000 + seed)
                #expect(try await deployment.register("ryw", token) == 201)
                #expect(try await deployment.get("/v1/users/ryw/devices").body.contains(token), "read your write")
                #expect(try await deployment.get("/v1/devices/\(token)?provider=ios").status == 200)
            }
            // Once the replica has replayed past the last write, reads go there.
            #expect(try await Self.eventually { try await deployment.readsFromTheReplica("ryw") })
            let listed = try await deployment.get("/v1/devices?limit=100")
            #expect((listed.object?["devices"] as? [Any])?.count == 20)
            #expect(try await deployment.get("/v1/devices/export").body.split(separator: "\n").count == 20)
            let lag = try #require(try await deployment.lag())
            #expect(lag >= 0 && lag < 2, "caught up: a poll or a WAL flush behind at most")

            let before = try await deployment.reads()
            #expect(try await deployment.get("/v1/users/ryw/devices?consistency=strong").status == 200)
            let after = try await deployment.reads()
            #expect(after.primary == before.primary + 1 && after.replica == before.replica)
            #expect(try await deployment.get("/v1/users/ryw/devices?consistency=eventual").status == 422)
        }
    }

    /// Replay paused on the replica while another writer commits on the primary: past the bound,
    /// this instance reads from the primary and sees that write.
    @Test func aReplicaLaggingPastTheBoundIsSkipped() async throws {
        try await Self.withDeployment { deployment in
            let replica = PostgresPool(
                configuration: PostgresConfiguration(url: deployment.replica.url, poolSize: 1),
                logger: TestSupport.logger("replica"))
            let outcome = await Result.of {
                #expect(try await Self.eventually { try await deployment.readsFromTheReplica("elsewhere") })
                _ = try await replica.withConnection { try $0.query("SELECT pg_wal_replay_pause()") }
                _ = try await DeviceStore(pool: deployment.pool).register(
                    try DeviceRegistration(
                        userID: try UserID("elsewhere"), provider: try ProviderName("ios"),
                        token: try PushToken(type: .apns, raw: Tokens.apns(4_000))))
                #expect(
                    try await Self.eventually {
                        try await deployment.get("/v1/users/elsewhere/devices").body.contains(Tokens.apns(4_000))
                    })
                #expect(try await Self.eventually { try await deployment.lag() ?? 0 > 0.5 }, "the lag metric shows it")
                _ = try await replica.withConnection { try $0.query("SELECT pg_wal_replay_resume()") }
            }
            await replica.shutdown()
            try outcome.get()
        }
    }

    /// The replica crashes while reads run, and comes back: no read fails, and the replica is
    /// used again once it has caught up.
    @Test func aReplicaThatGoesDownIsSkippedAndUsedAgainWhenBack() async throws {
        try await Self.withDeployment { deployment in
            #expect(try await deployment.register("steady", Tokens.apns(5_000)) == 201)
            #expect(try await Self.eventually { try await deployment.readsFromTheReplica("steady") })
            let stopping = Task { try await deployment.replica.stop(mode: "immediate") }
            for _ in 0..<100 {
                let response = try await deployment.get("/v1/users/steady/devices")
                #expect(response.status == 200 && response.body.contains(Tokens.apns(5_000)), "\(response.body)")
            }
            try await stopping.value
            for _ in 0..<20 {
                #expect(try await deployment.get("/v1/users/steady/devices").status == 200)
            }
            #expect(try await Self.eventually { try await deployment.replicaUp() == 0 }, "db_replica_up says it")
            #expect(try await deployment.lag() ?? 0 >= 0, "no made-up lag (such as -1) while it is down")
            try await deployment.replica.start()
            #expect(
                try await Self.eventually(within: .seconds(20)) { try await deployment.readsFromTheReplica("steady") })
            #expect(try await deployment.replicaUp() == 1)
        }
    }
}
