import Foundation
import MockPush
import PushTestSupport
import Store
import TestSupport
import Testing

/// Push jobs in one server against the mock APNs and FCM: every device once, counts that add up,
/// cancel, deadline, the queue limit, and a synchronous push's latency while a job runs.
@Suite("push jobs", .serialized)
struct PushJobTests {
    /// A server with workers, the `ios` (APNs) and `android` (FCM) providers of
    /// `withMockPushServer`, and `users` seeded users; the sender keeps its default settings.
    func withJobServer(
        users: Int, iosTokens: String = "apns", concurrency: Int = 128, workers: Bool = true,
        maxQueued: Int = 2_000_000, _ body: (PushServerSetup) async throws -> Void
    ) async throws {
        let configure = { (options: inout TestServer.Options) in
            options.sender = TestServer.Options().sender
            options.pushJobWorkers = workers
            options.postgres = { $0.poolSize = 8 }
            options.pushJobs.pollEvery = .milliseconds(50)
            options.pushJobs.concurrency = concurrency
            options.pushJobs.maxQueued = maxQueued
        }
        try await withMockPushServer(configure: configure) { setup in
            try await PushJobFixture.seedDevices(setup.server.pool, users: users, iosTokens: iosTokens)
            try await body(setup)
        }
    }

    func job(_ server: TestServer, _ location: String) async throws -> [String: Any] {
        let response = try await server.request("GET", location)
        guard response.status == 200, let job = response.json as? [String: Any] else {
            throw TestFailure("GET \(location) answered \(response.status): \(response.body)")
        }
        return job
    }

    /// Polls until the job's status is one of `statuses`, checking at every poll that its counts
    /// add up to its total.
    func wait(
        _ server: TestServer, _ location: String, until statuses: Set<String>, within: Duration = .seconds(120)
    ) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + within
        while true {
            let current = try await job(server, location)
            #expect(PushJobFixture.addsUp(current), "\(current)")
            if let status = current["status"] as? String, statuses.contains(status) { return current }
            guard ContinuousClock.now < deadline else { throw TestFailure("job still \(current)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    func accept(_ response: TestResponse) throws -> String {
        guard response.status == 202, let location = response.header("Location") else {
            throw TestFailure("job answered \(response.status): \(response.body)")
        }
        return location
    }

    @Test func everyDeviceGetsExactlyOnePushAndTheCountsAddUpAtEveryPoll() async throws {
        let users = 6000
        try await withJobServer(users: users) { setup in
            let posted = try await setup.server.request("POST", "/v1/push", json: PushJobFixture.body(users: users))
            let location = try accept(posted)
            let accepted = try #require(posted.json as? [String: Any])
            #expect(accepted["total"] as? Int == users)
            #expect(location == "/v1/push-jobs/\(accepted["id"] as? String ?? "")")
            let done = try await wait(setup.server, location, until: ["done"])
            #expect((done["counts"] as? [String: Int])?["sent"] == users, "\(done)")
            #expect(done["finished_at"] as? String != nil)
            let pushed = PushJobFixture.pushesByToken(setup.mock.server)
            #expect(pushed.count == users)
            #expect(pushed.values.allSatisfy { $0 == 1 }, "some device got more than one push")
        }
    }

    @Test func anNDJSONBodyIsAJobAndABadLineRefusesAllOfIt() async throws {
        try await withJobServer(users: 300) { setup in
            let server = setup.server
            let posted = try await server.request(
                "POST", "/v1/push-jobs", body: try PushJobFixture.ndjson(users: 300),
                contentType: "application/x-ndjson"
            )
            let location = try accept(posted)
            let done = try await wait(server, location, until: ["done"])
            #expect(done["total"] as? Int == 300)
            #expect(PushJobFixture.pushCount(setup.mock.server) == 300)

            let bad = try await server.request(
                "POST", "/v1/push-jobs", body: try PushJobFixture.ndjson(users: 3) + "42\n",
                contentType: "application/x-ndjson")
            #expect(bad.status == 422, "\(bad.body)")
            #expect(bad.body.contains("line 5"))
            let listed = try await server.pool.withConnection { try $0.query("SELECT count(*) AS n FROM push_jobs") }
            #expect(try listed.rows[0].int("n") == 1)
            // A small push asking for a job gets one too; a bad async is named.
            let small = try await server.request(
                "POST", "/v1/push", json: PushJobFixture.body(users: 2, extra: ["async": true]))
            #expect(small.status == 202, "\(small.body)")
            let wrong = try await server.request(
                "POST", "/v1/push", json: PushJobFixture.body(users: 2, extra: ["async": "yes"]))
            #expect(wrong.status == 422 && wrong.body.contains("async"), "\(wrong.body)")
            let unknown = try await server.request("GET", "/v1/push-jobs/not-a-job")
            #expect(unknown.status == 404)
        }
    }

    @Test func nothingIsSentAfterTheCancelAnswers() async throws {
        try await withJobServer(users: 5000, concurrency: 8) { setup in
            let mock = setup.mock.server
            PushJobFixture.slowDown(mock, milliseconds: 5)
            let location = try accept(
                try await setup.server.request(
                    "POST", "/v1/push-jobs", body: try PushJobFixture.ndjson(users: 5000),
                    contentType: "application/x-ndjson"))
            while PushJobFixture.pushCount(mock) < 300 { try await Task.sleep(for: .milliseconds(20)) }
            // Cancelled through another instance, which sends nothing: the worker hears of it
            // only from the database, and the answer waits until it has stopped.
            var other = TestServer.Options()
            other.databaseURL = setup.server.database?.url
            let (cancelled, atAnswer) = try await withTestServer(other) { api in
                let cancelled = try await api.request(
                    "DELETE", location, key: .bearer(try await api.key([.pushSend]).secret))
                return (cancelled, PushJobFixture.pushCount(mock))
            }
            #expect(cancelled.status == 200, "\(cancelled.body)")
            let job = try #require(cancelled.json as? [String: Any])
            #expect(job["status"] as? String == "cancelled")
            try await Task.sleep(for: .seconds(2))
            #expect(PushJobFixture.pushCount(mock) == atAnswer, "pushes were sent after the cancel answered")
            let after = try await self.job(setup.server, location)
            let counts = try #require(after["counts"] as? [String: Int])
            #expect(counts["sent"] == atAnswer)
            #expect((counts["unsent"] ?? 0) > 0 && counts["pending"] == 0, "\(after)")
            #expect(PushJobFixture.addsUp(after))
        }
    }

    @Test func aJobPastItsDeadlineEndsExpiredAndSendsNothingMore() async throws {
        try await withJobServer(users: 2000, concurrency: 2) { setup in
            let mock = setup.mock.server
            PushJobFixture.slowDown(mock, milliseconds: 20)
            let location = try accept(
                try await setup.server.request(
                    "POST", "/v1/push", json: PushJobFixture.body(users: 2000, extra: ["deadline": "2s"])))
            let expired = try await wait(setup.server, location, until: ["expired"], within: .seconds(30))
            let deadline = try #require((expired["deadline"] as? String).flatMap(Self.date))
            let atExpiry = PushJobFixture.pushCount(mock)
            #expect(atExpiry > 0 && atExpiry < 2000)
            try await Task.sleep(for: .seconds(1))
            #expect(PushJobFixture.pushCount(mock) == atExpiry)
            let last = mock.recordedRequests.filter { $0.endpoint != .oauth }.map(\.receivedAt).max()
            // A push starts only before the deadline; its request reaches the mock a moment later.
            #expect(try #require(last) <= deadline.addingTimeInterval(0.2), "a push arrived after the deadline")
            let counts = try #require((try await job(setup.server, location))["counts"] as? [String: Int])
            // Pushes still waiting for a slot when the deadline came are `expired`; the rest never started.
            #expect((counts["unsent"] ?? 0) > 0, "\(counts)")
            // An `expired` push may have reached the mock without an answer in time.
            let sent = counts["sent"] ?? 0
            #expect(
                sent <= atExpiry && atExpiry <= sent + (counts["expired"] ?? 0), "\(counts), \(atExpiry) at the mock")
        }
    }

    @Test func aSmallJobIsNotStuckBehindABigOne() async throws {
        try await withJobServer(users: 5020, concurrency: 8) { setup in
            PushJobFixture.slowDown(setup.mock.server, milliseconds: 5)
            let big = try accept(
                try await setup.server.request("POST", "/v1/push", json: PushJobFixture.body(users: 5000)))
            var small = PushJobFixture.body(users: 0, extra: ["async": true])
            small["user_ids"] = (5000..<5020).map { "fan-\($0)" }
            let location = try accept(try await setup.server.request("POST", "/v1/push", json: small))
            _ = try await wait(setup.server, location, until: ["done"])
            // Round robin: the small job got its turn long before the big one was through.
            let bigNow = try await job(setup.server, big)
            #expect(bigNow["status"] as? String == "running", "\(bigNow)")
            #expect(((bigNow["counts"] as? [String: Int])?["pending"] ?? 0) > 2500, "\(bigNow)")
        }
    }

    @Test func aFullQueueIsAnswered503WithRetryAfter() async throws {
        try await withJobServer(users: 150, workers: false, maxQueued: 100) { setup in
            let server = setup.server
            let first = try await server.request(
                "POST", "/v1/push", json: PushJobFixture.body(users: 80, extra: ["async": true]))
            #expect(first.status == 202, "\(first.body)")
            let second = try await server.request(
                "POST", "/v1/push", json: PushJobFixture.body(users: 30, extra: ["async": true]))
            #expect(second.status == 503, "\(second.body)")
            #expect(second.header("Retry-After") != nil)
            #expect(second.header("Content-Type") == "application/problem+json")
            let jobs = try await server.pool.withConnection { try $0.query("SELECT count(*) AS n FROM push_jobs") }
            #expect(try jobs.rows[0].int("n") == 1, "the refused job was kept")
        }
    }

    @Test func retentionDeletesFinishedJobsInBatchesAndLeavesLiveOnes() async throws {
        try await withJobServer(users: 30, workers: false) { setup in
            let server = setup.server
            let live = try accept(
                try await server.request(
                    "POST", "/v1/push", json: PushJobFixture.body(users: 10, extra: ["async": true])))
            let finished = try accept(
                try await server.request(
                    "POST", "/v1/push", json: PushJobFixture.body(users: 30, extra: ["async": true])))
            #expect(try await server.request("DELETE", finished).status == 200)
            let store = PushJobStore(pool: server.pool)
            #expect(try await store.pruneFinished(before: Date().addingTimeInterval(-60)) == 0)
            // Two days back, before any day partition (PartitionRetentionTests has those): it goes
            // by the default partition's path, its batches with it.
            _ = try await server.pool.withConnection { connection in
                try connection.execute(
                    """
                    UPDATE push_jobs SET created_at = created_at - interval '2 days',
                           finished_at = finished_at - interval '2 days' WHERE status = 'cancelled'
                    """)
            }
            #expect(try await store.pruneFinished(before: Date().addingTimeInterval(-60), batchSize: 7) == 1)
            #expect(try await server.request("GET", finished).status == 404)
            #expect(try await server.request("GET", live).status == 200)
            let rows = try await server.pool.withConnection {
                try $0.query("SELECT sum(cardinality(recipients))::integer AS n FROM push_job_batches").rows[0].int("n")
            }
            #expect(rows == 10)
        }
    }

    /// Not a timed assertion: the figures are printed, for the README and the lead.
    @Test func aSynchronousPushWhileAJobRunsKeepsItsLatency() async throws {
        try await withJobServer(users: 10_000) { setup in
            let server = setup.server
            _ = try await server.register(user: "ringer", token: Tokens.apns(999_999), provider: "ios", type: "apns")
            func ring() async throws -> Duration {
                let started = ContinuousClock.now
                let response = try await server.request(
                    "POST", "/v1/push", json: ["user_ids": ["ringer"], "apns": PushJobFixture.apnsSection])
                #expect(response.status == 200, "\(response.body)")
                return started.duration(to: .now)
            }
            var idle: [Duration] = []
            for _ in 0..<20 { idle.append(try await ring()) }
            let location = try accept(
                try await server.request("POST", "/v1/push", json: PushJobFixture.body(users: 10_000)))
            var during: [Duration] = []
            while (try await job(server, location))["status"] as? String != "done", during.count < 200 {
                during.append(try await ring())
            }
            _ = try await wait(server, location, until: ["done"])
            func summary(_ samples: [Duration]) -> String {
                let sorted = samples.sorted()
                guard !sorted.isEmpty else { return "no samples" }
                return "p50 \(sorted[sorted.count / 2]), max \(sorted.last!), n \(sorted.count)"
            }
            print("sync push latency idle: \(summary(idle)); during a 10,000-device job: \(summary(during))")
            #expect(!during.isEmpty)
        }
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }
}
