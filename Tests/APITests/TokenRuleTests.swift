import Foundation
import MockPush
import PushTestSupport
import TestSupport
import Testing

/// The token rule on every path: a `voip` push reaches only VoIP tokens and every other APNs push
/// type only remote ones; the others are `skipped`, named as a mismatch, never sent (APNs answers
/// the wrong kind `DeviceTokenNotForTopic`, which would disable a good token). A `voip` push is a
/// call: never a job, never sent for longer than a minute.
extension PushJobTests {
    @Test func anAlertJobSkipsVoIPTokensAndDisablesNone() async throws {
        // fan-0 and fan-2 have a VoIP token and, registered below, a remote one; fan-1 and fan-3 FCM.
        try await withJobServer(users: 4, iosTokens: "voip") { setup in
            let server = setup.server
            for user in [0, 2] {
                _ = try await server.register(
                    user: "fan-\(user)", token: Tokens.apns(500 + user), provider: "ios", type: "apns")
            }
            let posted = try await server.request(
                "POST", "/v1/push", json: PushJobFixture.body(users: 4, extra: ["async": true]))
            let done = try await wait(server, try accept(posted), until: ["done"])
            let counts = try #require(done["counts"] as? [String: Int])
            #expect(counts["sent"] == 4 && counts["skipped"] == 2, "\(counts)")
            let pushed = Set(CallEvents.pushes(setup.mock).compactMap(\.deviceToken))
            #expect(pushed == [Tokens.apns(500), Tokens.apns(502), "fcm-token:1_abc-DEF.1", "fcm-token:3_abc-DEF.3"])
            #expect(try await server.deviceRows(where: "disabled_at IS NOT NULL").isEmpty)
        }
    }

    @Test func aVoIPPushIsRefusedInAJobAndBeyondAMinute() async throws {
        try await withJobServer(users: 2, iosTokens: "voip") { setup in
            let server = setup.server
            let voip: [String: Any] = ["push_type": "voip", "payload": ["aps": [:]]]
            let job = try await server.request(
                "POST", "/v1/push", json: ["user_ids": ["fan-0"], "apns": voip, "async": true])
            #expect(job.status == 422 && job.fieldErrors == ["apns.push_type"], "\(job.body)")
            let streamed = try await server.request(
                "POST", "/v1/push-jobs", body: #"{"apns":{"push_type":"voip","payload":{}}}"# + "\n\"fan-0\"\n",
                contentType: "application/x-ndjson")
            #expect(streamed.status == 422 && streamed.fieldErrors == ["apns.push_type"], "\(streamed.body)")
            let late = try await server.request(
                "POST", "/v1/push",
                json: ["user_ids": ["fan-0"], "apns": voip.merging(["expiration": "5m"]) { $1 }, "deadline": "2m"])
            #expect(late.status == 422 && Set(late.fieldErrors) == ["deadline", "apns.expiration"], "\(late.body)")
            #expect(late.body.contains("voip push"))
            #expect(CallEvents.pushes(setup.mock).isEmpty)
            let jobs = try await server.pool.withConnection { try $0.query("SELECT count(*) AS n FROM push_jobs") }
            #expect(try jobs.rows[0].int("n") == 0)
            // A minute is still a ring.
            let ring = try await server.request(
                "POST", "/v1/push",
                json: ["user_ids": ["fan-0"], "apns": voip.merging(["expiration": "60s"]) { $1 }, "deadline": "60s"])
            #expect(ring.status == 200, "\(ring.body)")
        }
    }

    @Test func aSynchronousPushGoesOnlyToTheTokensItsTypeSuits() async throws {
        try await withJobServer(users: 0, workers: false) { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "voip")
            _ = try await server.register(user: "alice", token: Tokens.apns(2), provider: "ios", type: "apns")
            for (pushType, sentTo) in [
                ("alert", Tokens.apns(2)), ("voip", Tokens.apns(1)), ("background", Tokens.apns(2)),
            ] {
                setup.mock.server.clearRecordedRequests()
                var apns: [String: Any] = ["push_type": pushType, "payload": ["aps": [:]]]
                if pushType == "background" { apns["priority"] = 5 }
                let response = try await server.request(
                    "POST", "/v1/push", json: ["user_ids": ["alice"], "apns": apns])
                let results = try #require(response.object?["results"] as? [[String: Any]], "\(response.body)")
                let byType = Dictionary(uniqueKeysWithValues: results.map { ($0["type"] as? String ?? "", $0) })
                let skipped = try #require(byType[pushType == "voip" ? "apns" : "voip"])
                #expect(skipped["status"] as? String == "skipped", "\(pushType): \(results)")
                #expect((skipped["reason"] as? String)?.hasPrefix("token mismatch") == true, "\(skipped)")
                #expect(CallEvents.pushes(setup.mock).compactMap(\.deviceToken) == [sentTo], "\(pushType)")
            }
            #expect(try await server.deviceRows(where: "disabled_at IS NOT NULL").isEmpty)
        }
    }
}
