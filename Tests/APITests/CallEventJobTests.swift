import Foundation
import MockPush
import PushTestSupport
import TestSupport
import Testing

/// Call events sent as push jobs (more than 1,000 users, `"async": true`, or NDJSON), in the
/// push-job suite's server: every device pushed once in its provider's format, one job per event
/// id whichever form the event came in, the ttl as the job's deadline, and bodies refused whole.
extension PushJobTests {
    /// The seeded users' call event as NDJSON: the event without `user_ids`, then one per line.
    static func callEventLines(_ event: [String: Any]) throws -> String {
        var header = event
        let users = header.removeValue(forKey: "user_ids") as? [String] ?? []
        let first = String(decoding: try JSONSerialization.data(withJSONObject: header), as: UTF8.self)
        return ([first] + users.map { "\"\($0)\"" }).joined(separator: "\n") + "\n"
    }

    @Test func aRingForMoreThanAThousandUsersIsAJobThatRingsEachDeviceOnceInItsFormat() async throws {
        let users = 1200
        try await withJobServer(users: users, iosTokens: "voip") { setup in
            let server = setup.server
            let event = CallEvents.body(
                "evt_townhall", users: PushJobFixture.userIDs(users), ringingAt: CallEvents.wholeSecondNow)
            let posted = try await server.request("POST", "/v1/call-events", json: event)
            let location = try accept(posted)
            let accepted = try #require(posted.json as? [String: Any])
            #expect(accepted["kind"] as? String == "call_event")
            #expect(accepted["total"] as? Int == users)
            let done = try await wait(server, location, until: ["done"])
            #expect((done["counts"] as? [String: Int])?["sent"] == users, "\(done)")
            let pushed = PushJobFixture.pushesByToken(setup.mock.server)
            #expect(pushed.count == users && pushed.values.allSatisfy { $0 == 1 }, "\(pushed.count) devices pushed")

            // Each in the Stream shape, for its own user: a VoIP ring and a high-priority FCM data message.
            let pushes = CallEvents.pushes(setup.mock)
            // fan-0's VoIP token, as PushJobFixture seeds it.
            let voip = try #require(pushes.first { $0.deviceToken == String(repeating: "0", count: 60) + "1000" })
            #expect(voip.headers["apns-push-type"] == "voip")
            #expect(voip.headers["apns-topic"] == "com.example.app.voip")
            #expect(voip.body.contains(#""receiver_id":"fan-0""#), "\(voip.body)")
            let fcm = try CallEvents.fcmMessage(try #require(pushes.first { $0.endpoint == .fcm }))
            #expect((fcm["android"] as? [String: Any])?["priority"] as? String == "high")
            #expect((fcm["data"] as? [String: Any])?["type"] as? String == "call.ring")

            // The same event again, as NDJSON this time: the same job, and nothing more sent.
            let again = try await server.request(
                "POST", "/v1/call-events", body: try Self.callEventLines(event), contentType: "application/x-ndjson")
            #expect(try accept(again) == location)
            var other = event
            other["user_ids"] = Array(PushJobFixture.userIDs(users).dropLast())
            let conflict = try await server.request("POST", "/v1/call-events", json: other)
            #expect(conflict.status == 409 && conflict.body.contains(#""field":"id""#), "\(conflict.body)")
            try await Task.sleep(for: .milliseconds(300))
            #expect(PushJobFixture.pushCount(setup.mock.server) == users)

            let history = try #require(try await server.request("GET", "/v1/call-events/evt_townhall").object)
            #expect(history["job_id"] as? String == accepted["id"] as? String)
            #expect(history["state"] as? String == "done")
            #expect((history["results"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func concurrentPostsOfOneEventMakeOneJobAndARetryIsAnsweredEvenWhenTheQueueIsFull() async throws {
        let users = 1200
        // No workers: the job stays queued, holding the whole queue.
        try await withJobServer(users: users, workers: false, maxQueued: users) { setup in
            let server = setup.server
            // Repeats count as given, in JSON as in NDJSON, so both forms are one event.
            let listed = PushJobFixture.userIDs(users) + ["fan-0", "fan-1"]
            let event = CallEvents.body("evt_race", type: "call.live_started", users: listed, ttl: "1h")
            let asJSON = String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self)
            let asLines = try Self.callEventLines(event)
            async let first = server.request("POST", "/v1/call-events", body: asJSON, contentType: "application/json")
            async let second = server.request(
                "POST", "/v1/call-events", body: asLines, contentType: "application/x-ndjson")
            let (one, other) = try await (first, second)
            let location = try accept(one)
            #expect(try accept(other) == location)
            let jobs = try await server.pool.withConnection { try $0.query("SELECT count(*) AS n FROM push_jobs") }
            #expect(try jobs.rows[0].int("n") == 1, "the losing post's job was not discarded")
            let job = try await self.job(server, location)
            #expect(job["total"] as? Int == users)

            // The queue is full now: a new job is refused, a retry of this one still answered.
            let retry = try await server.request("POST", "/v1/call-events", json: event)
            #expect(try accept(retry) == location)
            var another = event
            another["id"] = "evt_race_2"
            let refused = try await server.request("POST", "/v1/call-events", json: another)
            #expect(refused.status == 503 && refused.header("Retry-After") != nil, "\(refused.body)")
        }
    }

    @Test func anEndlessStreamOfBlankLinesIsCutOff() async throws {
        try await withJobServer(users: 1, workers: false) { setup in
            let event = CallEvents.body("evt_blank", users: [])
            let header = try Self.callEventLines(event).trimmingCharacters(in: .newlines)
            let blanks = String(repeating: "\n", count: 2 * 1_000_000 + 10)
            let response = try await setup.server.request(
                "POST", "/v1/call-events", body: header + "\n" + blanks, contentType: "application/x-ndjson")
            #expect(response.status == 422 && response.body.contains(#""field":"line 2000002""#), "\(response.body)")
            let jobs = try await setup.server.pool.withConnection {
                try $0.query("SELECT count(*) AS n FROM push_jobs")
            }
            #expect(try jobs.rows[0].int("n") == 0)
        }
    }

    @Test func anAsyncEventForAFewUsersIsAJobThatKeepsTheTokenRule() async throws {
        try await withJobServer(users: 2, iosTokens: "voip") { setup in
            // fan-0 has a VoIP token, fan-1 an FCM one: a missed call never reaches a VoIP token.
            var event = CallEvents.body("evt_missed_async", type: "call.missed", users: PushJobFixture.userIDs(2))
            event["async"] = true
            let location = try accept(try await setup.server.request("POST", "/v1/call-events", json: event))
            let done = try await wait(setup.server, location, until: ["done"])
            let counts = try #require(done["counts"] as? [String: Int])
            #expect(counts["sent"] == 1 && counts["skipped"] == 1, "\(counts)")
            #expect(CallEvents.pushes(setup.mock).map(\.endpoint) == [.fcm])
        }
    }

    @Test func aRingJobPastItsTTLSendsNothing() async throws {
        try await withJobServer(users: 20, iosTokens: "voip") { setup in
            var event = CallEvents.body(
                "evt_late", users: PushJobFixture.userIDs(20), ringingAt: Date().addingTimeInterval(-31))
            event["async"] = true
            let location = try accept(try await setup.server.request("POST", "/v1/call-events", json: event))
            let over = try await wait(setup.server, location, until: ["expired", "done"], within: .seconds(30))
            #expect(over["status"] as? String == "expired", "\(over)")
            #expect((over["counts"] as? [String: Int])?["unsent"] == 20, "\(over)")
            #expect(CallEvents.pushes(setup.mock).isEmpty)
        }
    }

    @Test func aBadCallEventJobIsRefusedWholeAndLeavesNoJob() async throws {
        try await withJobServer(users: 3) { setup in
            let server = setup.server
            let event = CallEvents.body("evt_bad", users: PushJobFixture.userIDs(3))
            // Users in the first line of a stream, a bad user line, a bad async: each named, nothing kept.
            let inHeader = try await server.request(
                "POST", "/v1/call-events",
                body: String(decoding: try JSONSerialization.data(withJSONObject: event), as: UTF8.self)
                    + "\n\"fan-0\"\n",
                contentType: "application/x-ndjson")
            #expect(inHeader.status == 422 && inHeader.body.contains(#""field":"user_ids""#), "\(inHeader.body)")
            let badLine = try await server.request(
                "POST", "/v1/call-events", body: try Self.callEventLines(event) + "{}\n",
                contentType: "application/x-ndjson")
            #expect(badLine.status == 422 && badLine.body.contains(#""field":"line 5""#), "\(badLine.body)")
            var wrongAsync = event
            wrongAsync["async"] = "yes"
            let refused = try await server.request("POST", "/v1/call-events", json: wrongAsync)
            #expect(refused.status == 422 && refused.body.contains(#""field":"async""#), "\(refused.body)")
            let jobs = try await server.pool.withConnection { try $0.query("SELECT count(*) AS n FROM push_jobs") }
            #expect(try jobs.rows[0].int("n") == 0)
            let events = try await server.pool.withConnection { try $0.query("SELECT count(*) AS n FROM call_events") }
            #expect(try events.rows[0].int("n") == 0)
            #expect(CallEvents.pushes(setup.mock).isEmpty)

            // A push, too, may come as NDJSON straight to POST /v1/push.
            let push = try await server.request(
                "POST", "/v1/push", body: try PushJobFixture.ndjson(users: 3), contentType: "application/x-ndjson")
            _ = try await wait(server, try accept(push), until: ["done"])
            #expect(PushJobFixture.pushCount(setup.mock.server) == 3)
        }
    }
}
