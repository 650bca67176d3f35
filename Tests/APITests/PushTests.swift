import Foundation
import MockPush
import PushDelivery
import PushRules
import PushTestSupport
import RegistryCrypto
import TestSupport
import Testing

/// `POST /v1/push` against the mock APNs and FCM over real TLS and HTTP/2, each outcome checked
/// on the registry afterwards.
@Suite("/v1/push", .serialized)
struct PushTests {
    typealias Setup = PushServerSetup

    /// A push server (see `withMockPushServer`) whose providers may each have `concurrency` pushes
    /// in flight.
    func withPushServer(concurrency: Int = 256, _ body: (Setup) async throws -> Void) async throws {
        try await withMockPushServer(configure: { $0.sender.concurrency = concurrency }, body)
    }

    static var apnsSection: [String: Any] {
        [
            "push_type": "voip", "priority": 10, "expiration": "30s", "payload": ["aps": [:], "call_id": "c1"],
        ]
    }
    static var fcmSection: [String: Any] { ["message": ["data": ["call_id": "c1"], "android": ["priority": "high"]]] }

    func push(_ server: TestServer, _ body: [String: Any], key: TestServer.Key = .admin) async throws -> [[String: Any]]
    {
        var body = body
        if body["apns"] == nil, body["fcm"] == nil {
            body["apns"] = Self.apnsSection
            body["fcm"] = Self.fcmSection
        }
        let response = try await server.request("POST", "/v1/push", key: key, json: body)
        guard response.status == 200, let results = response.object?["results"] as? [[String: Any]] else {
            throw TestFailure("push answered \(response.status): \(response.body)")
        }
        return results
    }

    static func millisecondsSinceEpoch(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    @Test func sendsToEveryDeviceInAStableOrderWithTheirServiceIDs() async throws {
        try await withPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.apns(2), provider: "ios", type: "voip")
            _ = try await server.register(user: "alice", token: Tokens.fcm(1), provider: "android", type: "fcm")
            _ = try await server.register(
                user: "bob", token: Tokens.apns(1), provider: "ios", type: "voip", ["device_id": "phone"])
            let results = try await push(server, ["user_ids": ["bob", "alice"]])
            #expect(results.map { $0["provider"] as? String } == ["ios", "android", "ios"])
            #expect(results.map { $0["status"] as? String } == ["sent", "sent", "sent"])
            #expect(results[0]["device_id"] as? String == "phone")
            #expect(results[0]["token_hint"] as? String == String(Tokens.apns(1).suffix(8)))
            #expect((results[0]["service_id"] as? String)?.count == 36)
            #expect(results[0]["attempts"] as? Int == 1)
            #expect(results[0]["maybe_delivered"] as? Bool == false)
            #expect(
                (results[1]["service_id"] as? String)?.hasPrefix("projects/\(setup.mock.projectID)/messages/") == true)
            #expect(setup.mock.server.recordedRequests.filter { $0.endpoint != .oauth }.count == 3)
            // Filters leave devices out entirely.
            let filtered = try await push(server, ["user_ids": ["alice"], "types": ["fcm"]])
            #expect(filtered.map { $0["type"] as? String } == ["fcm"])
            // A device whose service has no section is skipped.
            let apnsOnly = try await push(server, ["user_ids": ["alice"], "apns": Self.apnsSection])
            #expect(apnsOnly.map { $0["status"] as? String } == ["skipped", "sent"])
            // No full token, provider token, access token or key in the answers or the logs.
            let seen = ([server.logs.joined] + (results + filtered + apnsOnly).map { "\($0)" }).joined(separator: "\n")
            #expect(!seen.contains(Tokens.apns(1)) && !seen.contains(Tokens.fcm(1)))
            #expect(!seen.contains("eyJ"))  // the start of every JWT
            #expect(!seen.contains("PRIVATE KEY"))

        }
    }

    @Test func aTokenDeadBeforeItsLastRegistrationIsKeptAndOneDeadAfterIsDeleted() async throws {
        try await withPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "voip")
            let before = Self.millisecondsSinceEpoch(Date().addingTimeInterval(-3600))
            setup.mock.server.script(
                MockReply(service: .apns, token: Tokens.apns(1), status: 410, reason: "Unregistered", timestamp: before)
            )
            let stale = try await push(server, ["user_ids": ["alice"]])
            #expect(stale[0]["status"] as? String == "token_invalid")
            #expect(stale[0]["reason"] as? String == "Unregistered")
            #expect(stale[0]["action"] as? String == "kept_newer")
            #expect(try await server.deviceRows().count == 1)

            let after = Self.millisecondsSinceEpoch(Date().addingTimeInterval(3600))
            setup.mock.server.script(
                MockReply(service: .apns, token: Tokens.apns(1), status: 410, reason: "Unregistered", timestamp: after))
            let dead = try await push(server, ["user_ids": ["alice"]])
            #expect(dead[0]["action"] as? String == "deleted")
            #expect(try await server.deviceRows().isEmpty)
        }
    }

    @Test func fcmUnregisteredDeletesAndBadDeviceTokenDisables() async throws {
        try await withPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.fcm(1), provider: "android", type: "fcm")
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "voip")
            setup.mock.server.script(MockReply(service: .fcm, status: 404, reason: "UNREGISTERED"))
            setup.mock.server.script(MockReply(service: .apns, status: 400, reason: "BadDeviceToken"))
            let results = try await push(server, ["user_ids": ["alice"]])
            #expect(results.map { $0["action"] as? String } == ["deleted", "disabled"])
            #expect(try await server.deviceRows().map(\.token) == [Tokens.apns(1)])
            #expect(try await server.deviceRows(where: "disabled_reason = 'BadDeviceToken'").count == 1)
            // A disabled device is listed as skipped, with why.
            let again = try await push(server, ["user_ids": ["alice"]])
            #expect(again[0]["status"] as? String == "skipped")
            #expect(again[0]["reason"] as? String == "disabled: BadDeviceToken")
        }
    }

    @Test func aBadMessageLeavesTheDevice() async throws {
        try await withPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "voip")
            setup.mock.server.script(MockReply(service: .apns, status: 400, reason: "BadTopic"))
            let results = try await push(server, ["user_ids": ["alice"]])
            #expect(results[0]["status"] as? String == "rejected")
            #expect(results[0]["reason"] as? String == "BadTopic")
            #expect(results[0]["action"] is NSNull)
            #expect(try await server.deviceRows(where: "disabled_at IS NULL").count == 1)
        }
    }

    /// Pushes read providers from a snapshot; a change made through this instance must still
    /// reach the very next push.
    @Test func aProviderChangeReachesTheNextPushAtOnce() async throws {
        try await withPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "voip")
            #expect(try await push(server, ["user_ids": ["alice"]])[0]["status"] as? String == "sent")
            let removed = try await server.request(
                "PUT", "/v1/providers/ios",
                json: [
                    "service": "apns", "topic": "com.example.app", "endpoint": setup.mock.baseURL,
                    "credentials": NSNull(),
                ])
            #expect(removed.status == 200, "\(removed.body)")
            let results = try await push(server, ["user_ids": ["alice"]])
            #expect(results[0]["status"] as? String == "failed")
            #expect(results[0]["reason"] as? String == "NoCredentials")
        }
    }

    @Test func anAuthFailureLeavesEveryDeviceAndMarksTheProviderUnhealthy() async throws {
        try await withPushServer { setup in
            let server = setup.server
            // A key the mock does not know: APNs answers 403 InvalidProviderToken.
            let stranger = try await server.request(
                "PUT", "/v1/providers/ios",
                json: [
                    "service": "apns", "topic": "com.example.app", "endpoint": setup.mock.baseURL,
                    "credentials": [
                        "team_id": setup.mock.teamID, "key_id": "OTHER12345",
                        "private_key": try SigningKey.generate(.es256).pkcs8PEM(),
                    ],
                ])
            #expect(stranger.status == 200)
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "apns")
            _ = try await server.register(user: "alice", token: Tokens.apns(2), provider: "ios", type: "apns")
            let results = try await push(
                server, ["user_ids": ["alice"], "apns": Self.apnsSection.merging(["push_type": "alert"]) { $1 }])
            #expect(results.map { $0["status"] as? String } == ["failed", "failed"])
            #expect(results.map { $0["reason"] as? String } == ["InvalidProviderToken", "InvalidProviderToken"])
            #expect(try await server.deviceRows(where: "disabled_at IS NULL").count == 2)
            let ready = try await server.request("GET", "/readyz", key: .none)
            #expect(ready.status == 200)
            let unhealthy = ready.object?["unhealthy_providers"] as? [[String: Any]]
            #expect(unhealthy?.first?["name"] as? String == "ios")
            #expect(unhealthy?.first?["reason"] as? String == "InvalidProviderToken")
        }
    }

    @Test func aDeviceUnansweredAtTheDeadlineIsExpired() async throws {
        try await withPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "voip")
            setup.mock.server.script(MockReply(service: .apns, delayMilliseconds: 20_000, times: 5))
            let results = try await push(server, ["user_ids": ["alice"], "deadline": "1s"])
            #expect(results[0]["status"] as? String == "expired")
            #expect(try await server.deviceRows().count == 1)
        }
    }

    /// A provider whose endpoint hangs does not hold up another provider's push: the healthy
    /// push is answered while the hung one is still waiting for its deadline.
    @Test func aHungProviderDoesNotDelayAnother() async throws {
        try await withPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "voip")
            _ = try await server.register(user: "bob", token: Tokens.fcm(1), provider: "android", type: "fcm")
            setup.mock.server.script(MockReply(service: .apns, delayMilliseconds: 60_000, times: 5))
            let clock = ContinuousClock()
            let hungStart = clock.now
            async let hung = push(server, ["user_ids": ["alice"], "deadline": "3s"])
            try await TestSupport.waitUntil("the hung push reached the mock") {
                setup.mock.server.recordedRequests.contains { $0.endpoint == .apns }
            }
            let healthyStart = clock.now
            let healthy = try await push(server, ["user_ids": ["bob"]])
            let healthyLatency = healthyStart.duration(to: clock.now)
            let hungEnd = try await hung
            #expect(healthy[0]["status"] as? String == "sent")
            #expect(hungEnd[0]["status"] as? String == "expired")
            // The healthy answer came while the hung request still waited for its deadline.
            #expect(healthyStart + healthyLatency < hungStart + .seconds(3))
            print("healthy provider's push latency while another hung: \(healthyLatency)")
        }
    }

    /// A provider limited to two pushes in flight, its endpoint hung: two pushes wait on the
    /// mock, the third never gets a slot and is expired at its deadline without being sent, and
    /// another provider's push goes through meanwhile.
    @Test func aPushBeyondItsProvidersConcurrencyExpiresUnsentWhileAnotherProviderSends() async throws {
        try await withPushServer(concurrency: 2) { setup in
            let server = setup.server
            for index in 1...3 {
                _ = try await server.register(user: "alice", token: Tokens.apns(index), provider: "ios", type: "voip")
            }
            _ = try await server.register(user: "bob", token: Tokens.fcm(1), provider: "android", type: "fcm")
            setup.mock.server.script(MockReply(service: .apns, delayMilliseconds: 60_000, times: 5))
            let clock = ContinuousClock()
            let hungStart = clock.now
            async let hung = push(server, ["user_ids": ["alice"], "deadline": "2s"])
            try await TestSupport.waitUntil("the budget's two pushes reached the mock") {
                setup.mock.server.recordedRequests.count { $0.endpoint == .apns } == 2
            }
            let healthyStart = clock.now
            let healthy = try await push(server, ["user_ids": ["bob"]])
            let healthyAnswered = clock.now
            let hungResults = try await hung
            #expect(healthy[0]["status"] as? String == "sent")
            // Answered while the full budget's pushes still waited for their deadline.
            #expect(healthyAnswered < hungStart + .seconds(2))
            print(
                "healthy provider's push latency while another's budget is full: \(healthyStart.duration(to: healthyAnswered))"
            )
            #expect(hungResults.allSatisfy { $0["status"] as? String == "expired" })
            #expect(hungResults.count { $0["reason"] as? String == "ProviderBusy" } == 1)
            #expect(setup.mock.server.recordedRequests.count { $0.endpoint == .apns } == 2)
        }
    }

    @Test func aPayloadTooLargeForEveryTargetIsRefusedBeforeSending() async throws {
        try await withPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "apns")
            _ = try await server.register(user: "alice", token: Tokens.apns(2), provider: "ios", type: "voip")
            let big = String(repeating: "x", count: 4500)
            let section: [String: Any] = ["push_type": "voip", "payload": ["aps": [:], "pad": big]]
            // 4.5 KiB fits a VoIP token (5 KiB); the remote token is skipped anyway: a voip push is not for it.
            let mixed = try await push(server, ["user_ids": ["alice"], "apns": section])
            #expect(mixed.map { $0["status"] as? String } == ["skipped", "sent"])
            setup.mock.server.clearRecordedRequests()
            let huge: [String: Any] = ["push_type": "voip", "payload": ["pad": String(repeating: "x", count: 6000)]]
            let refused = try await server.request(
                "POST", "/v1/push", json: ["user_ids": ["alice"], "apns": huge])
            #expect(refused.status == 422)
            #expect(refused.fieldErrors == ["apns.payload"])
            #expect(setup.mock.server.recordedRequests.isEmpty)
        }
    }

    @Test func pushNeedsThePushSendScopeAndNamesBadFields() async throws {
        try await withPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "alice", token: Tokens.apns(1), provider: "ios", type: "voip")
            let pusher = try await server.key([.pushSend])
            let reader = try await server.key([.devicesRead])
            #expect(try await push(server, ["user_ids": ["alice"]], key: .bearer(pusher.secret)).count == 1)
            let forbidden = try await server.request(
                "POST", "/v1/push", key: .bearer(reader.secret),
                json: ["user_ids": ["alice"], "apns": Self.apnsSection])
            #expect(forbidden.status == 403)
            // A push:send key cannot read tokens.
            #expect(
                try await server.request("GET", "/v1/users/alice/devices", key: .bearer(pusher.secret)).status == 403)
            let bad = try await server.request(
                "POST", "/v1/push",
                json: [
                    "user_ids": [], "apns": ["push_type": "nope", "payload": [:]],
                    "fcm": ["message": ["data": ["n": 1]]], "deadline": "forever",
                ])
            #expect(bad.status == 422)
            #expect(
                Set(bad.fieldErrors) == ["user_ids", "apns.push_type", "fcm.message.data.n", "deadline"], "\(bad.body)")
        }
    }
}
