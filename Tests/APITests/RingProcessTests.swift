import Foundation
import Logging
import MockPush
import Postgres
import PushTestSupport
import RegistryCrypto
import TestSupport
import Testing

/// `device-registry serve` as a process ringing through the DialStack webhook: a deploy (SIGTERM)
/// lets a ring answered early finish and record it, a redelivery after a `kill -9` between
/// the claim and the push rings once, and a ring's stages are timed in `/metrics`.
@Suite struct RingProcessTests {
    static let secret = "whsec_process"

    /// The mock, a database, and the environment every instance runs with.
    struct Setup {
        let mock: MockPushFixture
        let database: TestDatabase
        let admin: APIKeySecret
        let environment: [String: String]

        static func start() async throws -> Setup {
            let mock = try await MockPushFixture.start()
            let admin = try APIKeySecret.generate()
            return Setup(
                mock: mock, database: try await TestDatabase.create(), admin: admin,
                environment: [
                    "PUSH_CA_FILE": mock.certificates.caFile,
                    "REGISTRY_MASTER_KEY": try MasterKey.generate().base64url, "REGISTRY_ADMIN_KEY": admin.value,
                    "DIALSTACK_WEBHOOK_SECRET": secret,
                ])
        }

        func request(_ port: Int, _ method: String, _ path: String, _ body: [String: Any]) async throws
            -> TestResponse
        {
            let client = try await HTTPTestClient.connect(port: port)
            defer { Task { await client.close() } }
            return try await client.request(
                method, path,
                headers: [("Authorization", "Bearer \(admin.value)"), ("Content-Type", "application/json")],
                body: String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        }

        /// The APNs provider `ios` on the mock, and user artem's VoIP device under it.
        func addVoIPDevice(_ port: Int) async throws {
            let put = try await request(
                port, "PUT", "/v1/providers/ios",
                [
                    "service": "apns", "topic": "com.example.app", "endpoint": mock.baseURL,
                    "credentials": [
                        "team_id": mock.teamID, "key_id": mock.keyID, "private_key": try mock.apnsKey.pkcs8PEM(),
                    ],
                ])
            #expect(put.status == 201, "\(put.body)")
            _ = try await request(
                port, "POST", "/v1/devices",
                ["user_id": "artem", "provider": "ios", "type": "voip", "token": Tokens.apns(1)])
        }

        func deliver(_ port: Int, _ body: String) async throws -> TestResponse {
            let client = try await HTTPTestClient.connect(port: port)
            defer { Task { await client.close() } }
            return try await client.request(
                "POST", "/v1/webhooks/dialstack",
                headers: [
                    ("Content-Type", "application/json"),
                    ("X-DialStack-Signature", CallEvents.signature(body, secret: RingProcessTests.secret)),
                ],
                body: body)
        }

        /// The call event row's state and results, read from the database.
        func row(_ id: String) async throws -> (state: String, result: String?, leaseOver: Bool)? {
            let pool = PostgresPool(configuration: PostgresConfiguration(url: database.url), logger: Logger(label: "t"))
            defer { Task { await pool.shutdown() } }
            return try await pool.withConnection { connection in
                try connection.query(
                    """
                    SELECT state, result::text AS result, coalesce(lease_until < clock_timestamp(), false) AS over
                      FROM call_events WHERE id = '\(id)'
                    """
                ).rows.first.map { (try $0.string("state"), $0["result"], try $0.bool("over")) }
            }
        }

        func finish() async throws {
            await database.drop()
            try await mock.stop()
        }
    }

    @Test func aDeployLetsARingAnsweredEarlyFinishAndRecordIt() async throws {
        let setup = try await Setup.start()
        let (server, port) = try await ProcessTests.serve(setup.database.url, setup.environment)
        try await setup.addVoIPDevice(port)
        // The push service holds the ring 3 s: the webhook answers at its 2.5 s budget, and the
        // deploy's SIGTERM comes while the push is still out.
        setup.mock.server.script(MockReply(service: .apns, delayMilliseconds: 3000))
        let answer = try await setup.deliver(port, CallEvents.wakeup("evt_deploy"))
        #expect(answer.status == 200 && answer.object?["state"] as? String == "running", "\(answer.body)")
        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(30))
        #expect(server.exitCode == 0, "\(server.stderr.suffix(5))")
        let row = try await setup.row("evt_deploy")
        #expect(row?.state == "done", "\(String(describing: row))")
        #expect(row?.result?.contains(#""status": "sent""#) == true, "\(String(describing: row))")
        #expect(CallEvents.pushes(setup.mock).count == 1)
        try await setup.finish()
    }

    @Test func aRedeliveryAfterAKilledPostersLeaseRingsOnce() async throws {
        let setup = try await Setup.start()
        // The first instance's FCM token exchange goes to a port that never answers: it claims
        // the event and is stuck before any push leaves when it is killed.
        let blackHole = try BlackHoleListener()
        var account = try #require(
            try JSONSerialization.jsonObject(with: Data(try setup.mock.serviceAccountJSON().utf8)) as? [String: Any])
        let provider = { (account: [String: Any]) -> [String: Any] in
            [
                "service": "fcm", "project_id": setup.mock.projectID, "endpoint": setup.mock.baseURL,
                "credentials": ["service_account": account],
            ]
        }
        let working = account
        account["token_uri"] = "https://localhost:\(blackHole.port)/token"
        let (first, firstPort) = try await ProcessTests.serve(setup.database.url, setup.environment)
        #expect(try await setup.request(firstPort, "PUT", "/v1/providers/android", provider(account)).status == 201)
        _ = try await setup.request(
            firstPort, "POST", "/v1/devices",
            ["user_id": "artem", "provider": "android", "type": "fcm", "token": Tokens.fcm(1)])
        let body = CallEvents.wakeup("evt_crash")
        let answer = try await setup.deliver(firstPort, body)
        #expect(answer.status == 200 && answer.object?["state"] as? String == "running", "\(answer.body)")
        first.signal(SIGKILL)
        try await first.waitForExit(within: .seconds(10))
        #expect(try await setup.row("evt_crash")?.state == "running")

        let (second, port) = try await ProcessTests.serve(setup.database.url, setup.environment)
        #expect(try await setup.request(port, "PUT", "/v1/providers/android", provider(working)).status == 200)
        // Within its lease the event is still the dead poster's: a redelivery then is a duplicate.
        let deadline = ContinuousClock.now + .seconds(20)
        while try await setup.row("evt_crash")?.leaseOver != true {
            guard ContinuousClock.now < deadline else { throw TestFailure("the lease never lapsed") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let redelivered = try await setup.deliver(port, body)
        #expect(redelivered.status == 200, "\(redelivered.body)")
        #expect(redelivered.object?["duplicate"] as? Bool == false, "\(redelivered.body)")
        #expect(redelivered.object?["state"] as? String == "done", "\(redelivered.body)")
        let again = try await setup.deliver(port, body)
        #expect(again.object?["duplicate"] as? Bool == true, "\(again.body)")
        #expect(CallEvents.pushes(setup.mock).count == 1)
        // The webhook is answered once the push is out; its result is recorded after.
        try await TestSupport.waitUntil("the redelivered ring's result recorded") {
            try await setup.row("evt_crash")?.state == "done"
        }
        second.signal(SIGTERM)
        try await second.waitForExit(within: .seconds(20))
        try await setup.finish()
    }

    /// `call_event_ring_seconds{stage}`: a ring that claims and sends is timed at every stage,
    /// in buckets fine enough for milliseconds; a redelivery, which sends nothing, adds no claim.
    @Test func aRingsStagesAreTimed() async throws {
        let setup = try await Setup.start()
        let (server, port) = try await ProcessTests.serve(setup.database.url, setup.environment)
        try await setup.addVoIPDevice(port)
        let body = CallEvents.wakeup("evt_timed")
        #expect(try await setup.deliver(port, body).object?["state"] as? String == "done")
        #expect(try await setup.deliver(port, body).object?["duplicate"] as? Bool == true)
        let samples = PrometheusText.samples(try await ProcessTests.get(port, "/metrics").body)
        let claimStages = ["claim_asked", "devices_read"]
        for stage in claimStages + ["claimed", "sending", "handed_to_sender", "push_answered", "answered"] {
            let series = #"call_event_ring_seconds_count{stage="\#(stage)"}"#
            #expect(samples[series] == (claimStages.contains(stage) ? 2 : 1), "\(series)")
        }
        #expect(samples[#"call_event_ring_seconds_bucket{stage="answered",le="0.0005"}"#] != nil)
        server.signal(SIGTERM)
        try await server.waitForExit(within: .seconds(20))
        try await setup.finish()
    }
}
