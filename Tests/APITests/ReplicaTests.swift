import Foundation
import NIOConcurrencyHelpers
import Postgres
import RegistryCore
import RegistryCrypto
import Store
import TestSupport
import Testing

/// `serve` with DATABASE_READ_URL on a real streaming replica (`pg_basebackup -R`): reads see this
/// instance's writes, and another instance's with the write's `Registry-Consistency` token; they
/// go to the replica once it has replayed what they must see, even while other users are written,
/// to the primary when asked (`?consistency=strong`), when it lags past the bound, or when it is
/// gone. Pushes read devices from the primary.
@Suite("A read replica")
struct ReplicaTests {
    struct Deployment: Sendable {
        let primary: ThrowawayCluster
        let replica: StreamingReplica
        /// The first instance's; `ports` has every instance's.
        let port: Int
        let ports: [Int]
        let key: String
        /// Straight to the primary.
        let pool: PostgresPool

        func get(_ path: String) async throws -> TestResponse {
            try await ProcessTests.get(port, path, key: key)
        }

        /// One request to instance `instance`, as the admin, on a connection of its own.
        func request(
            _ instance: Int, _ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil
        ) async throws -> TestResponse {
            let client = try await HTTPTestClient.connect(port: ports[instance])
            var headers = headers + [("Authorization", "Bearer \(key)")]
            if body != nil { headers.append(("Content-Type", "application/json")) }
            let response = await Result.of { try await client.request(method, path, headers: headers, body: body) }
            await client.close()
            return try response.get()
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
        func reads(on instance: Int = 0) async throws -> (replica: Double, primary: Double) {
            let samples = PrometheusText.samples(try await ProcessTests.get(ports[instance], "/metrics").body)
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

        /// Once `user`'s reads go to the replica, pauses its replay and registers `token` for
        /// `user` straight on the primary, as another instance would; runs `body`, then resumes.
        func pausingReplay(
            thenRegistering token: String, for user: String, _ body: () async throws -> Void
        ) async throws {
            let replica = PostgresPool(
                configuration: PostgresConfiguration(url: self.replica.url, poolSize: 1),
                logger: TestSupport.logger("replica"))
            let outcome = await Result.of {
                #expect(try await ReplicaTests.eventually { try await readsFromTheReplica(user) })
                _ = try await replica.withConnection { try $0.query("SELECT pg_wal_replay_pause()") }
                _ = try await DeviceStore(pool: pool).register(
                    try DeviceRegistration(
                        userID: try UserID(user), provider: try ProviderName("ios"),
                        token: try PushToken(type: .apns, raw: token)))
                try await body()
                _ = try await replica.withConnection { try $0.query("SELECT pg_wal_replay_resume()") }
            }
            await replica.shutdown()
            try outcome.get()
        }

        func replicaUp() async throws -> Double? {
            PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)["db_replica_up"]
        }
    }

    /// `instances` servers on one primary, each reading from the one replica.
    static func withDeployment(
        instances: Int = 1, maxLagMilliseconds: Int = 500, _ body: (Deployment) async throws -> Void
    ) async throws {
        let primary = try await ThrowawayCluster.start()
        let result = await Result.of {
            let replica = try await StreamingReplica.start(of: primary)
            let outcome = await Result.of {
                var servers: [RegistryProcess] = []
                var ports: [Int] = []
                for _ in 0..<instances {
                    let (server, port) = try await ProcessTests.serve(
                        primary.url,
                        ["DATABASE_READ_URL": replica.url, "DATABASE_READ_MAX_LAG_MS": "\(maxLagMilliseconds)"])
                    servers.append(server)
                    ports.append(port)
                }
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
                            primary: primary, replica: replica, port: ports[0], ports: ports, key: secret.value,
                            pool: pool))
                }
                for server in servers { server.signal(SIGTERM) }
                for server in servers { try? await server.waitForExit(within: .seconds(15)) }
                await pool.shutdown()
                try ran.get()
            }
            await replica.destroy()
            try outcome.get()
        }
        await primary.destroy()
        try result.get()
    }

    /// Whether `condition` comes to hold within `timeout` (TestSupport.waitUntil, as a Bool for `#expect`).
    static func eventually(within timeout: Duration = .seconds(10), _ condition: () async throws -> Bool)
        async throws -> Bool
    {
        (try? await TestSupport.waitUntil("condition", within: timeout, every: .milliseconds(50), condition)) != nil
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

    /// A client writes through one instance and at once reads through another, sending back the
    /// write's token: 1,000 times (registrations and logouts alternating), the read is never
    /// stale. Once writes stop and the replica has replayed the last token, such reads go to it.
    @Test func aWriteOnOneInstanceIsReadOnAnotherWithItsToken() async throws {
        try await Self.withDeployment(instances: 2) { deployment in
            var stale = 0
            var lastToken = ""
            for round in 0..<1_000 {
                let token = Tokens.apns(10_000 + round / 2)
                let registering = round.isMultiple(of: 2)
                let written =
                    registering
                    ? try await deployment.request(
                        0, "POST", "/v1/devices",
                        body: #"{"user_id":"roam","provider":"ios","type":"apns","token":"\#(token)"}"#)
                    : try await deployment.request(0, "DELETE", "/v1/users/roam/devices/\(token)")
                #expect(written.status == (registering ? 201 : 204))
                lastToken = try #require(written.header("Registry-Consistency"))
                let read = try await deployment.request(
                    1, "GET", "/v1/users/roam/devices", headers: [("Registry-Consistency", lastToken)])
                #expect(read.status == 200)
                if read.body.contains(token) != registering { stale += 1 }
            }
            #expect(stale == 0, "reads through the other instance that missed the write")
            let before = try await deployment.reads(on: 1).replica
            #expect(
                try await Self.eventually {
                    _ = try await deployment.request(
                        1, "GET", "/v1/users/roam/devices", headers: [("Registry-Consistency", lastToken)])
                    return try await deployment.reads(on: 1).replica > before
                }, "a replica that has replayed the token serves the read")
            let malformed = try await deployment.request(
                1, "GET", "/v1/users/roam/devices", headers: [("Registry-Consistency", "latest")])
            #expect(malformed.status == 422 && malformed.body.contains("Registry-Consistency"))
        }
    }

    /// Writes to other users through the same instance do not keep a user's reads off the replica.
    @Test func theReplicaServesReadsWhileOtherUsersAreWritten() async throws {
        // A bound no busy test machine's replay exceeds: what is tested here is whose writes count.
        try await Self.withDeployment(maxLagMilliseconds: 10_000) { deployment in
            #expect(try await deployment.register("quiet", Tokens.apns(6_000)) == 201)
            #expect(try await Self.eventually { try await deployment.readsFromTheReplica("quiet") })
            let stop = NIOLockedValueBox(false)
            let writing = Task { () throws -> Int in
                var written = 0
                while !stop.withLockedValue({ $0 }) {
                    #expect(try await deployment.register("busy-\(written % 50)", Tokens.apns(7_000 + written)) == 201)
                    written += 1
                }
                return written
            }
            // Enough writes in flight that the former process-wide rule would read from the primary.
            let servedByTheReplica = await Result.of {
                let primaryBefore = try await deployment.reads().primary
                var served = 0
                for _ in 0..<50 {
                    if try await deployment.readsFromTheReplica("quiet") { served += 1 }
                }
                return (served, try await deployment.reads().primary - primaryBefore)
            }
            stop.withLockedValue { $0 = true }
            let written = try await writing.value
            let (served, primaryReads) = try servedByTheReplica.get()
            #expect(written > 0)
            #expect(served >= 40, "\(served) of 50 reads from the replica, \(primaryReads) from the primary")
        }
    }

    /// Replay paused, with a lag bound long enough that the replica stays in use: a registration
    /// committed elsewhere is not on the replica (a read without a token may miss it), yet a push
    /// to that user goes to the new token: who gets a push is read from the primary.
    @Test func pushesReadCommittedDevices() async throws {
        try await Self.withDeployment(maxLagMilliseconds: 600_000) { deployment in
            try await deployment.pausingReplay(thenRegistering: Tokens.apns(8_000), for: "ringing") { () async throws in
                let listed = try await deployment.get("/v1/users/ringing/devices")
                #expect(!listed.body.contains(Tokens.apns(8_000)), "the paused replica answered, without it")
                let pushed = try await PushProcessTests.sender(port: deployment.port, key: deployment.key)(
                    "POST", "/v1/push",
                    ["user_ids": ["ringing"], "apns": ["push_type": "alert", "payload": ["aps": [:]]]])
                // Answers show a token's last 8 characters only.
                let hint = #""token_hint":"\#(Tokens.apns(8_000).suffix(8))""#
                #expect(pushed.status == 200 && pushed.body.contains(hint), "\(pushed.body)")
            }
        }
    }

    /// Replay paused on the replica while another writer commits on the primary: past the bound,
    /// this instance reads from the primary and sees that write.
    @Test func aReplicaLaggingPastTheBoundIsSkipped() async throws {
        try await Self.withDeployment { deployment in
            try await deployment.pausingReplay(thenRegistering: Tokens.apns(4_000), for: "elsewhere") {
                () async throws in
                #expect(
                    try await Self.eventually {
                        try await deployment.get("/v1/users/elsewhere/devices").body.contains(Tokens.apns(4_000))
                    })
                #expect(try await Self.eventually { try await deployment.lag() ?? 0 > 0.5 }, "the lag metric shows it")
            }
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
