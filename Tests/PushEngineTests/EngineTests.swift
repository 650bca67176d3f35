import CallPush
import Foundation
import Postgres
import PushDelivery
import PushEngine
import RegistryCore
import Store
import TestSupport
import Testing

/// The engine driven directly, with no HTTP server: a real database, its own job workers. The
/// providers have no credentials, so every push ends `failed` with `NoCredentials` without a
/// push service: what is under test is the claim, the send through the one path and the record.
@Suite("Engine")
struct EngineTests {
    static let users = 6

    /// An engine on a fresh database with `users` users, each with an FCM token on `android`.
    static func withEngine(_ body: (Engine, PostgresPool) async throws -> Void) async throws {
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
            credentials: ProviderCredentialStore(pool: pool, sealer: nil), callEvents: CallEventStore(pool: pool),
            pushJobs: PushJobStore(pool: pool), senders: try PushSenderFactory(additionalCAFile: nil),
            settings: settings, logger: TestSupport.logger("engine"))
        let running = Task { await engine.run() }
        do {
            try await body(engine, pool)
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
        try await Self.withEngine { engine, _ in
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
        try await Self.withEngine { engine, _ in
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
}
