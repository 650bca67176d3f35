import Foundation
import Logging
import MockPush
import Postgres
import PushTestSupport
import RegistryCrypto
import TestSupport
import Testing

/// Push jobs across `kill -9`: the real binary, killed mid-job, then started again (a push to
/// APNs and FCM devices; the instances share the APNs provider token, so the restarted one is not
/// refused for signing a new one) or replaced by a second instance on the same database (a call
/// event sent as a job). Every device is pushed, and no more devices are pushed twice than the
/// documented bound: `PUSH_JOB_BATCH × PUSH_JOB_BATCHES` per crash.
@Suite("push jobs across crashes", .serialized)
struct PushJobProcessTests {
    static let users = 8000
    static let batch = 100
    static let batches = 2

    struct Cluster {
        let mock: MockPushFixture
        let database: TestDatabase
        let environment: [String: String]
        let admin: String
    }

    func withCluster(_ body: (Cluster) async throws -> Void) async throws {
        let mock = try await MockPushFixture.start()
        let database = try await TestDatabase.create()
        let admin = try APIKeySecret.generate()
        let cluster = Cluster(
            mock: mock, database: database,
            environment: [
                "PUSH_CA_FILE": mock.certificates.caFile, "REGISTRY_MASTER_KEY": try MasterKey.generate().base64url,
                "REGISTRY_ADMIN_KEY": admin.value, "PUSH_JOB_BATCH": "\(Self.batch)",
                "PUSH_JOB_BATCHES": "\(Self.batches)", "PUSH_JOB_LEASE_SECONDS": "2", "PUSH_JOB_CONCURRENCY": "16",
            ], admin: admin.value)
        // Slow enough that a kill lands mid-job.
        PushJobFixture.slowDown(mock.server, milliseconds: 2, times: 1_000_000)
        do {
            try await body(cluster)
        } catch {
            await database.drop()
            try await mock.stop()
            throw error
        }
        await database.drop()
        try await mock.stop()
    }

    func send(_ port: Int, _ cluster: Cluster, _ method: String, _ path: String, body: String? = nil) async throws
        -> TestResponse
    {
        let client = try await HTTPTestClient.connect(port: port)
        var headers = [("Authorization", "Bearer \(cluster.admin)")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let response = try await client.request(method, path, headers: headers, body: body)
        await client.close()
        return response
    }

    func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Providers pointed at the mock, the seeded devices, and a job for all of them (a push, or
    /// `body` posted to `path`); its location.
    func startJob(
        _ port: Int, _ cluster: Cluster, path: String = "/v1/push", body: [String: Any]? = nil,
        iosTokens: String = "apns"
    )
        async throws -> String
    {
        let mock = cluster.mock
        let ios = try await send(
            port, cluster, "PUT", "/v1/providers/ios",
            body: try json([
                "service": "apns", "topic": "com.example.app", "endpoint": mock.baseURL,
                "credentials": [
                    "team_id": mock.teamID, "key_id": mock.keyID, "private_key": try mock.apnsKey.pkcs8PEM(),
                ],
            ]))
        #expect(ios.status == 201, "\(ios.body)")
        let account = try JSONSerialization.jsonObject(with: Data(try mock.serviceAccountJSON().utf8))
        let android = try await send(
            port, cluster, "PUT", "/v1/providers/android",
            body: try json([
                "service": "fcm", "project_id": mock.projectID, "endpoint": mock.baseURL,
                "credentials": ["service_account": account],
            ]))
        #expect(android.status == 201, "\(android.body)")
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: cluster.database.url), logger: Logger(label: "seed"))
        try await PushJobFixture.seedDevices(pool, users: Self.users, iosTokens: iosTokens)
        await pool.shutdown()
        let posted = try await send(
            port, cluster, "POST", path, body: try json(body ?? PushJobFixture.body(users: Self.users)))
        guard posted.status == 202, let location = posted.header("Location") else {
            throw TestFailure("job answered \(posted.status): \(posted.body)")
        }
        return location
    }

    func waitUntilDone(_ port: Int, _ cluster: Cluster, _ location: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(60)
        var job: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            let response = try await send(port, cluster, "GET", location)
            job = try #require(response.json as? [String: Any], "\(response.body)")
            #expect(PushJobFixture.addsUp(job), "\(job)")
            if job["status"] as? String == "done" { return job }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw TestFailure("the job did not finish: \(job)")
    }

    /// Every device pushed at least once, and how many were pushed more than once.
    func checkEveryDevicePushed(_ cluster: Cluster, devices: Int, crashes: Int) {
        let pushed = PushJobFixture.pushesByToken(cluster.mock.server)
        let repeated = pushed.values.filter { $0 > 1 }.count
        let bound = Self.batch * Self.batches * crashes
        print("push jobs: \(pushed.count) of \(devices) devices pushed, \(repeated) twice or more (bound \(bound))")
        #expect(pushed.count == devices, "devices were skipped")
        #expect(repeated <= bound)
    }

    @Test func aKilledInstanceStartedAgainFinishesTheJob() async throws {
        try await withCluster { cluster in
            let (first, port) = try await ProcessTests.serve(cluster.database.url, cluster.environment)
            let location = try await startJob(port, cluster)
            while PushJobFixture.pushCount(cluster.mock.server) < Self.users / 4 {
                try await Task.sleep(for: .milliseconds(20))
            }
            first.signal(SIGKILL)
            try await first.waitForExit(within: .seconds(10))
            let killedAt = ContinuousClock.now
            let atKill = PushJobFixture.pushCount(cluster.mock.server)
            let (second, secondPort) = try await ProcessTests.serve(cluster.database.url, cluster.environment)
            let job: [String: Any]
            do { job = try await waitUntilDone(secondPort, cluster, location) } catch {
                print(
                    (second.stdout + second.stderr).filter { !$0.contains("\"request\"") }.suffix(30).joined(
                        separator: "\n"))
                let pool = PostgresPool(
                    configuration: PostgresConfiguration(url: cluster.database.url), logger: Logger(label: "x"))
                let reasons = try await pool.withConnection {
                    try $0.query(
                        """
                        SELECT o.status, o.reason, count(*) AS n
                          FROM push_job_batches b, unnest(b.statuses, b.reasons) AS o(status, reason) GROUP BY 1, 2
                        """
                    ).rows.map {
                        "\($0["status"] ?? "") \($0["reason"] ?? "") \($0["n"] ?? "")"
                    }
                }
                print("reasons: \(reasons)")
                await pool.shutdown()
                throw error
            }
            print("push jobs: killed after \(atKill) pushes; done \(killedAt.duration(to: .now)) after the kill")
            #expect((job["counts"] as? [String: Int])?["sent"] == Self.users, "\(job)")
            checkEveryDevicePushed(cluster, devices: Self.users, crashes: 1)
            second.signal(SIGTERM)
            try await second.waitForExit(within: .seconds(20))
        }
    }

    @Test func aSecondInstanceTakesOverWhenTheFirstIsKilled() async throws {
        try await withCluster { cluster in
            // The second instance serves no API traffic here; it only works.
            let (survivor, port) = try await ProcessTests.serve(cluster.database.url, cluster.environment)
            let (victim, victimPort) = try await ProcessTests.serve(cluster.database.url, cluster.environment)
            // A missed call for every user: FCM devices get it, VoIP ones are skipped by the token rule.
            let event = CallEvents.body(
                "evt_takeover", type: "call.missed", users: PushJobFixture.userIDs(Self.users), ttl: "1h")
            let location = try await startJob(
                victimPort, cluster, path: "/v1/call-events", body: event, iosTokens: "voip")
            while PushJobFixture.pushCount(cluster.mock.server) < Self.users / 8 {
                try await Task.sleep(for: .milliseconds(20))
            }
            victim.signal(SIGKILL)
            try await victim.waitForExit(within: .seconds(10))
            let job = try await waitUntilDone(port, cluster, location)
            #expect((job["counts"] as? [String: Int])?["sent"] == Self.users / 2, "\(job)")
            #expect((job["counts"] as? [String: Int])?["skipped"] == Self.users / 2, "\(job)")
            checkEveryDevicePushed(cluster, devices: Self.users / 2, crashes: 1)
            // The survivor's own sends and the database-wide queue, now empty.
            try await Task.sleep(for: .seconds(1.5))
            let metrics = PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)
            #expect((metrics[#"push_job_pushes_total{status="sent"}"#] ?? 0) > 0, "\(metrics)")
            #expect(metrics[#"push_jobs_queued{scope="database"}"#] == 0)
            #expect(metrics["push_jobs_in_flight"] == 0)
            #expect(metrics[#"push_jobs_oldest_queued_seconds{scope="database"}"#] == 0)
            survivor.signal(SIGTERM)
            try await survivor.waitForExit(within: .seconds(20))
        }
    }
}
