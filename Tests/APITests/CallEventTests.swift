import CallPush
import Foundation
import MockPush
import PushTestSupport
import Store
import TestSupport
import Testing

/// `POST /v1/call-events` against the mock APNs and FCM over TLS: what each token receives (the
/// exact JSON, against the seeds' shapes), the token rule, the ttl, idempotency and history.
@Suite("/v1/call-events", .serialized)
struct CallEventTests {
    func post(_ server: TestServer, _ body: [String: Any], key: TestServer.Key = .admin) async throws -> [String: Any] {
        let response = try await server.request("POST", "/v1/call-events", key: key, json: body)
        guard response.status == 200, let object = response.object else {
            throw TestFailure("call event answered \(response.status): \(response.body)")
        }
        return object
    }

    static func results(_ answer: [String: Any]) -> [[String: Any]] { answer["results"] as? [[String: Any]] ?? [] }

    /// The Stream ring: the VoIP push is `{"stream": {…}}` with no `aps`, on the `.voip` topic at
    /// priority 10 expiring at `ringing_at` + ttl; the FCM message carries the same fields as
    /// high-priority data with what is left of the ttl. The remote APNs token is not rung.
    @Test func aRingWakesVoIPAndFCMInTheStreamShape() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            _ = try await server.register(user: "artem", token: Tokens.apns(2), provider: "ios", type: "apns")
            _ = try await server.register(user: "artem", token: Tokens.fcm(1), provider: "android", type: "fcm")
            let ringingAt = CallEvents.wholeSecondNow
            let answer = try await post(server, CallEvents.body("evt_ring", ringingAt: ringingAt))
            #expect(answer["duplicate"] as? Bool == false)
            #expect(answer["state"] as? String == "done")
            let results = Self.results(answer)
            #expect(results.map { $0["type"] as? String } == ["fcm", "apns", "voip"])
            #expect(results.map { $0["status"] as? String } == ["sent", "skipped", "sent"])
            #expect((results[1]["reason"] as? String)?.contains("remote APNs tokens are not rung") == true)

            let pushes = CallEvents.pushes(setup.mock)
            #expect(pushes.count == 2)
            let voip = try #require(pushes.first { $0.endpoint == .apns })
            #expect(voip.deviceToken == Tokens.apns(1))
            #expect(voip.headers["apns-push-type"] == "voip")
            #expect(voip.headers["apns-topic"] == "com.example.app.voip")
            #expect(voip.headers["apns-priority"] == "10")
            #expect(voip.headers["apns-expiration"] == String(Int(ringingAt.timeIntervalSince1970) + 30))
            #expect(voip.body == #"{"stream":\#(CallEvents.streamFields("call.ring"))}"#)

            let fcm = try CallEvents.fcmMessage(try #require(pushes.first { $0.endpoint == .fcm }))
            #expect(fcm["token"] as? String == Tokens.fcm(1))
            #expect(fcm["data"] as? NSDictionary == (try CallEvents.object(CallEvents.streamFields("call.ring"))))
            #expect(fcm["notification"] == nil)
            let android = try #require(fcm["android"] as? [String: Any])
            #expect(android["priority"] as? String == "high")
            let ttl = try #require((android["ttl"] as? String)?.dropLast())
            #expect((20...30).contains(Double(ttl) ?? 0), "android.ttl \(ttl)s is what is left of 30 s")
        }
    }

    /// A non-ringing event: an alert in the Stream seed's shape on the remote APNs token, the
    /// seed's data map on FCM; the VoIP token gets nothing.
    @Test func aMissedCallIsAnAlertAndADataMessageInTheStreamShape() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            _ = try await server.register(user: "artem", token: Tokens.apns(2), provider: "ios", type: "apns")
            _ = try await server.register(user: "artem", token: Tokens.fcm(1), provider: "android", type: "fcm")
            let answer = try await post(server, CallEvents.body("evt_missed", type: "call.missed"))
            let results = Self.results(answer)
            #expect(results.map { $0["type"] as? String } == ["fcm", "apns", "voip"])
            #expect(results.map { $0["status"] as? String } == ["sent", "sent", "skipped"])

            let pushes = CallEvents.pushes(setup.mock)
            #expect(pushes.count == 2)
            let alert = try #require(pushes.first { $0.endpoint == .apns })
            #expect(alert.deviceToken == Tokens.apns(2))
            #expect(alert.headers["apns-push-type"] == "alert")
            #expect(alert.headers["apns-topic"] == "com.example.app")
            // The same event delivered twice replaces its banner.
            #expect(alert.headers["apns-collapse-id"] == NameBasedUUID.eventUUID("evt_missed"))
            // Without a template, the built-in text; without a ttl, a missed call's day.
            let fields = CallEvents.streamFields("call.missed", title: "Missed call", body: "Missed call from John Doe")
            #expect(
                alert.body
                    == #"{"aps":{"alert":{"title":"Missed call","body":"Missed call from John Doe"},"#
                    + #""category":"stream.video","mutable-content":1,"#
                    + #""sound":"default","thread-id":"video-default:call_id_123"},"stream":\#(fields)}"#)
            let expiration = try #require(alert.headers["apns-expiration"].flatMap { Double($0) })
            #expect(abs(expiration - Date().addingTimeInterval(86_400).timeIntervalSince1970) < 60)
            let fcm = try CallEvents.fcmMessage(try #require(pushes.first { $0.endpoint == .fcm }))
            #expect(fcm["data"] as? NSDictionary == (try CallEvents.object(fields)))
            #expect((fcm["android"] as? [String: Any])?["priority"] as? String == "high")
            let ttl = try #require((fcm["android"] as? [String: Any])?["ttl"] as? String)
            #expect(ttl.hasPrefix("86399.") || ttl.hasPrefix("86400"), "\(ttl)")
        }
    }

    @Test func aUserWithOnlyAVoIPTokenIsSkippedForANonRingingEventWithTheReason() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            let results = Self.results(
                try await post(server, CallEvents.body("evt_voip_only", type: "call.notification")))
            #expect(results.map { $0["status"] as? String } == ["skipped"])
            let reason = try #require(results[0]["reason"] as? String)
            #expect(reason.contains("VoIP token only receives rings"), "\(reason)")
            #expect(CallEvents.pushes(setup.mock).isEmpty)
        }
    }

    @Test func aRingWhoseTTLHasPassedIsExpiredAndNothingIsSent() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            _ = try await server.register(user: "artem", token: Tokens.fcm(1), provider: "android", type: "fcm")
            let late = CallEvents.body("evt_late", ringingAt: Date().addingTimeInterval(-31))
            let results = Self.results(try await post(server, late))
            #expect(results.map { $0["status"] as? String } == ["expired", "expired"])
            #expect((results[0]["reason"] as? String)?.contains("has passed") == true)
            #expect(CallEvents.pushes(setup.mock).isEmpty)
        }
    }

    /// The same id and body again answers the first result and sends nothing; the same id with
    /// another body is 409 naming `id`, and sends nothing either.
    @Test func theSameEventAgainIsADuplicateAndAnotherBodyUnderItsIdIs409() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            let event = CallEvents.body("evt_twice")
            let first = try await post(server, event)
            let again = try await post(server, event)
            #expect(first["duplicate"] as? Bool == false)
            #expect(again["duplicate"] as? Bool == true)
            #expect(again["state"] as? String == "done")
            #expect(
                Self.results(again).map { $0["service_id"] as? String }
                    == Self.results(first).map {
                        $0["service_id"] as? String
                    })
            #expect(CallEvents.pushes(setup.mock).count == 1)

            var other = event
            other["user_ids"] = ["someone-else"]
            let conflict = try await server.request("POST", "/v1/call-events", json: other)
            #expect(conflict.status == 409)
            #expect(conflict.fieldErrors == ["id"], "\(conflict.body)")
            #expect(CallEvents.pushes(setup.mock).count == 1)
        }
    }

    /// A duplicate arriving while the first post is still waiting on a slow push service waits
    /// and answers the first one's result; the device is pushed once.
    @Test func aDuplicateWhileTheFirstIsSendingWaitsForItsResult() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            setup.mock.server.script(MockReply(service: .apns, delayMilliseconds: 1500))
            async let first = post(server, CallEvents.body("evt_slow"))
            try await Task.sleep(for: .milliseconds(300))
            let running = try await server.request("GET", "/v1/call-events/evt_slow")
            #expect(running.object?["state"] as? String == "running")
            let second = try await post(server, CallEvents.body("evt_slow"))
            let firstAnswer = try await first
            #expect(second["duplicate"] as? Bool == true)
            #expect(second["state"] as? String == "done")
            #expect(Self.results(second).map { $0["status"] as? String } == ["sent"])
            #expect(Self.results(firstAnswer).map { $0["status"] as? String } == ["sent"])
            #expect(CallEvents.pushes(setup.mock).count == 1)
        }
    }

    /// The dedupe window is 24 h: the same id a day later is a new call that rings, and its
    /// history replaces the old one's.
    @Test func anIdPostedAgainAfter24HoursIsANewEvent() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            _ = try await post(server, CallEvents.body("evt_yesterday"))
            _ = try await server.pool.withConnection { connection in
                try connection.query(
                    "UPDATE call_events SET created_at = now() - interval '25 hours' WHERE id = 'evt_yesterday'")
            }
            let again = try await post(server, CallEvents.body("evt_yesterday"))
            #expect(again["duplicate"] as? Bool == false)
            #expect(CallEvents.pushes(setup.mock).count == 2)
            let history = try await server.request("GET", "/v1/call-events/evt_yesterday")
            let created = try #require(history.object?["created_at"] as? String)
            let parser = ISO8601DateFormatter()
            parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            #expect(try #require(parser.date(from: created)).timeIntervalSinceNow > -60)
        }
    }

    /// An instance that died while sending leaves its row running: once the event's deadline and
    /// the margin have passed, a retry is answered `abandoned` at once and nothing is sent again.
    @Test func aRowLeftRunningByACrashedInstanceIsAbandonedNotWaitedOnOrResent() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            _ = try await post(server, CallEvents.body("evt_crashed"))
            _ = try await server.pool.withConnection { connection in
                try connection.query(
                    """
                    UPDATE call_events SET state = 'running', result = NULL, finished_at = NULL,
                           deadline = now() - interval '1 minute' WHERE id = 'evt_crashed'
                    """)
            }
            let retry = try await post(server, CallEvents.body("evt_crashed"))
            #expect(retry["duplicate"] as? Bool == true)
            #expect(retry["state"] as? String == "abandoned")
            #expect(Self.results(retry).isEmpty)
            #expect(CallEvents.pushes(setup.mock).count == 1)
            let history = try await server.request("GET", "/v1/call-events/evt_crashed")
            #expect(history.object?["state"] as? String == "abandoned")
        }
    }

    /// `GET /v1/call-events/{id}` answers the stored results until the prune deletes the event.
    @Test func historyIsKeptUntilPruned() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "artem", token: Tokens.fcm(1), provider: "android", type: "fcm")
            _ = try await post(server, CallEvents.body("evt_history", type: "call.missed"))
            _ = try await post(server, CallEvents.body("evt_recent", type: "call.missed"))
            let pusher = try await server.key([.pushSend])
            let history = try await server.request("GET", "/v1/call-events/evt_history", key: .bearer(pusher.secret))
            #expect(history.status == 200)
            #expect(history.object?["duplicate"] == nil)
            #expect(history.object?["type"] as? String == "call.missed")
            #expect(Self.results(history.object ?? [:]).map { $0["status"] as? String } == ["sent"])
            #expect(try await server.request("GET", "/v1/call-events/evt_unknown").status == 404)
            let reader = try await server.key([.devicesRead])
            #expect(
                try await server.request("GET", "/v1/call-events/evt_history", key: .bearer(reader.secret)).status
                    == 403)

            _ = try await server.pool.withConnection { connection in
                try connection.query(
                    "UPDATE call_events SET created_at = now() - interval '8 days' WHERE id = 'evt_history'")
            }
            let pruned = try await CallEventStore(pool: server.pool).prune(
                createdBefore: Date().addingTimeInterval(-7 * 86_400), batchSize: 1)
            #expect(pruned == 1)
            #expect(try await server.request("GET", "/v1/call-events/evt_history").status == 404)
            #expect(try await server.request("GET", "/v1/call-events/evt_recent").status == 200)
        }
    }

    @Test func badEventsAre422NamingTheFieldAndSendNothing() async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            _ = try await server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            var bad = CallEvents.body("evt_bad", ttl: "90s")
            bad["to_number"] = "0800 123"
            let response = try await server.request("POST", "/v1/call-events", json: bad)
            #expect(response.status == 422)
            #expect(Set(response.fieldErrors) == ["ttl", "to_number"], "\(response.body)")
            #expect(CallEvents.pushes(setup.mock).isEmpty)
            #expect(try await server.request("GET", "/v1/call-events/evt_bad").status == 404)
        }
    }
}
