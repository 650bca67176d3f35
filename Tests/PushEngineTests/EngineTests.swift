import CallPush
import Foundation
import Postgres
import PushDelivery
import PushRules
import RegistryCore
import RegistryCrypto
import Store
import TestSupport
import Testing

@testable import PushEngine

/// The engine driven directly, with no HTTP server: a real database, its own job workers. The
/// providers have no credentials, so every push ends `failed` with `NoCredentials` without a
/// push service: what is under test is the claim, the send through the one path and the record.
@Suite("Engine")
struct EngineTests {
    static let users = 6

    /// An engine on a fresh database with `users` users, each with an FCM token on `android`,
    /// sending through `senders`; `body` may stop it early by cancelling the task running it.
    static func withEngine(
        senders: PushSenderFactory? = nil, _ body: (Engine, PostgresPool, Task<Void, Never>) async throws -> Void
    ) async throws {
        let database = try await TestDatabase.create()
        let pool = PostgresPool(
            configuration: PostgresConfiguration(url: database.url, poolSize: 4), logger: TestSupport.logger("engine"))
        let providers = ProviderStore(pool: pool)
        _ = try await providers.put(try Provider(name: try ProviderName("android"), service: .fcm, projectID: "p"))
        try await pool.withConnection { connection in
            _ = try connection.query(
                """
                INSERT INTO devices (provider, token, type, user_id, created_at, updated_at, last_seen_at)
                SELECT 'android', 'fcm-token:' || i, 'fcm', 'fan-' || i, now(), now(), now()
                  FROM generate_series(0, $1 - 1) AS i
                """, [users])
        }
        var settings = PushJobSettings()
        settings.pollEvery = .milliseconds(20)
        let engine = Engine(
            devices: DeviceStore(pool: pool), providers: providers,
            credentials: ProviderCredentialStore(pool: pool, sealer: TestServer.sealer),
            callEvents: CallEventStore(pool: pool), pushJobs: PushJobStore(pool: pool),
            senders: try senders ?? PushSenderFactory(additionalCAFile: nil),
            settings: settings, logger: TestSupport.logger("engine"))
        let running = Task { await engine.run() }
        do {
            try await body(engine, pool, running)
        } catch {
            running.cancel()
            await running.value
            await pool.shutdown()
            await database.drop()
            throw error
        }
        running.cancel()
        await running.value
        await pool.shutdown()
        await database.drop()
    }

    static var userList: String { (0..<users).map { "\"fan-\($0)\"" }.joined(separator: ",") }

    @Test func aPushJobIsWorkedOffByTheEnginesOwnWorkers() async throws {
        try await Self.withEngine { engine, _, _ in
            let body = try JSONParser.parse(
                #"{"user_ids":[\#(Self.userList)],"fcm":{"message":{"data":{"event":"live"}}}}"#)
            let queued = try await engine.receiveJob(try PushJobRequest.parse(body))
            #expect(queued.counts.total == Self.users)
            var job = queued
            try await TestSupport.waitUntil("the job is done", within: .seconds(20), every: .milliseconds(20)) {
                job = try #require(try await engine.job(id: queued.id))
                return job.status == .done
            }
            #expect(job.counts.failed == Self.users && job.counts.pending == 0, "\(job.counts)")
        }
    }

    @Test func aCallEventIsClaimedSentAndRecordedOnce() async throws {
        try await Self.withEngine { engine, _, _ in
            let body = try JSONParser.parse(
                #"""
                {"id":"ring-1","type":"call.ring","user_ids":["fan-0","fan-1"],
                 "call":{"id":"call_1","type":"default","display_name":"","has_video":false},
                 "caller":{"id":"john","display_name":"John","phone_number":"+14155551234"},"to_number":"+14155559876"}
                """#)
            let event = try CallEvent.parse(body, arrivedAt: Date())
            let first = try await engine.post(event)
            #expect(first.duplicate == false)
            #expect(first.results.map(\.status) == [.failed, .failed])
            #expect(first.results.map(\.reason) == ["NoCredentials", "NoCredentials"])
            let again = try await engine.post(event)
            #expect(again.duplicate == true)
            #expect(again.results.map(\.token_hint) == first.results.map(\.token_hint))
            let stored = try #require(try await engine.callEvent(id: "ring-1"))
            #expect(stored.results.count == 2)
        }
    }

    /// A credential renewal is the engine's task like a ring answered early: started through its
    /// task owner and waited for at shutdown, so none outlives `run`. The FCM token service here
    /// takes the connection and never answers, so the exchange runs until its timeout.
    @Test func aCredentialRenewalIsTheEnginesAndShutdownWaitsForIt() async throws {
        let tokenService = try BlackHoleListener()
        let senders = try PushSenderFactory(
            additionalCAFile: nil,
            configuration: SenderConfiguration(connectTimeout: .seconds(30), attemptTimeout: .seconds(2)))
        try await Self.withEngine(senders: senders) { engine, pool, running in
            let account = try JSONParser.parse(
                String(
                    decoding: try JSONSerialization.data(withJSONObject: [
                        "type": "service_account", "project_id": "p", "private_key_id": "k1",
                        "private_key": try SigningKey.generate(.rs256).pkcs8PEM(),
                        "client_email": "registry@p.iam.gserviceaccount.com",
                        "token_uri": "https://127.0.0.1:\(tokenService.port)/token",
                    ]), as: UTF8.self))
            let credentials = try ProviderCredentials.parse(.object(["service_account": account]), service: .fcm)
            let summary = try credentials.summary()
            let sealed = try ProviderCredentialStore(pool: pool, sealer: TestServer.sealer)
                .seal(try credentials.storedForm(), for: try ProviderName("android"))
            _ = try await ProviderStore(pool: pool).put(
                try Provider(name: try ProviderName("android"), service: .fcm, projectID: "p"),
                credentials: .replace(
                    sealed: sealed,
                    facts: CredentialFacts(
                        teamID: summary.teamID, keyID: summary.keyID, clientEmail: summary.clientEmail,
                        keyFingerprint: summary.keyFingerprint)))
            let request = try PushRequest.parse(
                try JSONParser.parse(#"{"user_ids":["fan-0"],"fcm":{"message":{"data":{"k":"v"}}},"deadline":"2s"}"#))
            let push = Task { try await engine.push(request) }
            try await TestSupport.waitUntil("the access token exchange runs as the engine's task") {
                engine.tasks.count == 1
            }
            running.cancel()
            await running.value
            #expect(engine.tasks.count == 0, "a renewal outlived the engine")
            let results = try await push.value
            #expect(results.map(\.status) == [.expired], "\(results)")
        }
    }
}
