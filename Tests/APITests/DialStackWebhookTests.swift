import CallPush
import Foundation
import MockPush
import PushTestSupport
import TestSupport
import Testing

/// `POST /v1/webhooks/dialstack`: only a body signed with a configured secret, within 5 minutes,
/// rings; a redelivery never rings twice; anything refused changes nothing.
@Suite("/v1/webhooks/dialstack", .serialized)
struct DialStackWebhookTests {
    static let secret = "whsec_current"
    static let oldSecret = "whsec_previous"

    /// A push server whose webhook accepts `secrets` (comma-separated), with a VoIP and an FCM
    /// token for `artem`.
    func withWebhookServer(secrets: String? = secret, _ body: (PushServerSetup) async throws -> Void)
        async throws
    {
        let signature = try secrets.map { try DialStackSignature(secrets: $0) }
        let withPhones = { (setup: PushServerSetup) in
            _ = try await setup.server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip")
            _ = try await setup.server.register(
                user: "artem", token: Tokens.fcm(1), provider: "android", type: "fcm")
            try await body(setup)
        }
        try await withMockPushServer(configure: { $0.api.dialStackSignature = signature }, withPhones)
    }

    func deliver(_ server: TestServer, _ body: String, signature: String?) async throws -> TestResponse {
        try await server.request(
            "POST", "/v1/webhooks/dialstack", key: .none, body: body,
            headers: signature.map { [("X-DialStack-Signature", $0)] } ?? [])
    }

    func callEventRows(_ server: TestServer) async throws -> Int {
        try await server.pool.withConnection { connection in
            try connection.query("SELECT count(*)::int AS n FROM call_events").rows[0].int("n")
        }
    }

    @Test func aSignedWakeupRingsEveryDeviceOnceAndARedeliveryIsADuplicate() async throws {
        try await withWebhookServer { setup in
            let server = setup.server
            let body = CallEvents.wakeup("evt_wakeup_1")
            let answer = try await deliver(server, body, signature: CallEvents.signature(body, secret: Self.secret))
            #expect(answer.status == 200, "\(answer.body)")
            #expect(answer.object?["id"] as? String == "evt_wakeup_1")
            #expect(answer.object?["type"] as? String == "call.ring")
            #expect(answer.object?["duplicate"] as? Bool == false)
            #expect(CallEvents.pushes(setup.mock).count == 2)
            let voip = try #require(CallEvents.pushes(setup.mock).first { $0.endpoint == .apns })
            #expect(voip.headers["apns-push-type"] == "voip")
            #expect(
                voip.body.contains(#""type":"call.ring""#) && voip.body.contains(#""call_cid":"default:call_id_123""#))

            // DialStack redelivers (a new signature, same event): 200, nothing sent again.
            let replay = try await deliver(server, body, signature: CallEvents.signature(body, secret: Self.secret))
            #expect(replay.status == 200)
            #expect(replay.object?["duplicate"] as? Bool == true)
            #expect(CallEvents.pushes(setup.mock).count == 2)
            // The answer came once the pushes were out; their results are recorded after it.
            try await TestSupport.waitUntil("the wake-up's results recorded") {
                try await server.request("GET", "/v1/call-events/evt_wakeup_1").object?["state"] as? String == "done"
            }
            let history = try await server.request("GET", "/v1/call-events/evt_wakeup_1")
            #expect((history.object?["results"] as? [Any])?.count == 2)
        }
    }

    @Test func aBadOrMissingSignatureIs401AndNothingIsSentOrStored() async throws {
        try await withWebhookServer { setup in
            let server = setup.server
            let body = CallEvents.wakeup("evt_refused")
            let tampered = body.replacingOccurrences(of: "John Doe", with: "Mallory")
            let refused: [(String, String, String?)] = [
                ("wrong secret", body, CallEvents.signature(body, secret: "whsec_guess")),
                ("tampered body", tampered, CallEvents.signature(body, secret: Self.secret)),
                (
                    "t 6 minutes old", body,
                    CallEvents.signature(body, secret: Self.secret, at: Date().addingTimeInterval(-360))
                ),
                ("missing header", body, nil),
                ("malformed header", body, "sha256=abc"),
            ]
            for (what, sent, signature) in refused {
                let response = try await deliver(server, sent, signature: signature)
                #expect(response.status == 401, "\(what): \(response.body)")
            }
            #expect(CallEvents.pushes(setup.mock).isEmpty)
            #expect(try await callEventRows(server) == 0)
            // The log says why, never the signature or a secret.
            let logs = server.logs.joined
            #expect(logs.contains("a DialStack webhook was refused"))
            #expect(!logs.contains(Self.secret) && !logs.contains("whsec_guess") && !logs.contains("v1="))
        }
    }

    /// During a rotation both secrets sign; a header with several `v1` values counts when any does.
    @Test func duringARotationEitherSecretSigns() async throws {
        try await withWebhookServer(secrets: "\(Self.secret), \(Self.oldSecret)") { setup in
            let server = setup.server
            let byOld = CallEvents.wakeup("evt_old_secret")
            let old = try await deliver(server, byOld, signature: CallEvents.signature(byOld, secret: Self.oldSecret))
            #expect(old.status == 200)
            let byNew = CallEvents.wakeup("evt_new_secret", callID: "call_2")
            let both =
                CallEvents.signature(byNew, secret: "whsec_unknown") + ","
                + CallEvents.signature(byNew, secret: Self.secret).split(separator: ",")[1]
            let current = try await deliver(server, byNew, signature: both)
            #expect(current.status == 200)
            #expect(CallEvents.pushes(setup.mock).count == 4)
        }
    }

    @Test func otherEventTypesAreAcknowledgedAndIgnored() async throws {
        try await withWebhookServer { setup in
            let body = #"{"id":"evt_other","type":"call.ended","data":{"call_id":"c1"}}"#
            let response = try await deliver(
                setup.server, body, signature: CallEvents.signature(body, secret: Self.secret))
            #expect(response.status == 200)
            #expect(response.object?["ignored"] as? Bool == true)
            #expect(response.object?["type"] as? String == "call.ended")
            #expect(CallEvents.pushes(setup.mock).isEmpty)
            #expect(try await callEventRows(setup.server) == 0)
        }
    }

    /// A push service that takes longer than the webhook's budget: DialStack gets its 200 in time,
    /// the push goes on and its result is recorded.
    @Test func aSlowPushServiceDoesNotHoldTheAnswerAndTheResultIsRecorded() async throws {
        try await withWebhookServer { setup in
            let server = setup.server
            setup.mock.server.script(MockReply(service: .apns, delayMilliseconds: 4000))
            let body = CallEvents.wakeup("evt_slow_service")
            let answer = try await deliver(server, body, signature: CallEvents.signature(body, secret: Self.secret))
            #expect(answer.status == 200)
            #expect(answer.object?["state"] as? String == "running")
            var state: String?
            for _ in 0..<100 where state != "done" {
                try await Task.sleep(for: .milliseconds(100))
                state = try await server.request("GET", "/v1/call-events/evt_slow_service").object?["state"] as? String
            }
            #expect(state == "done")
            let history = try await server.request("GET", "/v1/call-events/evt_slow_service")
            let statuses = (history.object?["results"] as? [[String: Any]])?.map { $0["status"] as? String }
            #expect(statuses == ["sent", "sent"])
        }
    }

    @Test func anUnconfiguredWebhookSaysHowToConfigureIt() async throws {
        try await withWebhookServer(secrets: nil) { setup in
            let body = CallEvents.wakeup("evt_unconfigured")
            let response = try await deliver(setup.server, body, signature: CallEvents.signature(body, secret: "x"))
            #expect(response.status == 503)
            #expect(response.body.contains("DIALSTACK_WEBHOOK_SECRET"))
            #expect(CallEvents.pushes(setup.mock).isEmpty)
        }
    }

    /// Both push services answering after 5 s: DialStack still gets its answer at the webhook's
    /// budget (2.5 s; asserted with room to spare, well short of the 5 s), the ring goes on.
    @Test func pushServicesAt5sDoNotHoldTheAnswer() async throws {
        try await withWebhookServer { setup in
            for service in [MockReply.Service.apns, .fcm] {
                setup.mock.server.script(MockReply(service: service, delayMilliseconds: 5000))
            }
            let body = CallEvents.wakeup("evt_both_slow")
            let started = ContinuousClock.now
            let answer = try await deliver(
                setup.server, body, signature: CallEvents.signature(body, secret: Self.secret))
            let took = started.duration(to: .now)
            #expect(answer.status == 200)
            #expect(answer.object?["state"] as? String == "running")
            #expect(took < .milliseconds(4500), "answered after \(took)")
        }
    }

    /// A withheld number DialStack spells "anonymous" (or an extension, a short code) is not
    /// E.164: it is dropped, logged and counted, and the phone rings all the same.
    @Test func anAnonymousFromNumberRings() async throws {
        try await withWebhookServer { setup in
            let body =
                #"{"id":"evt_anonymous","type":"call.mobile_push_wakeup","data":{"call_id":"call_9","#
                + #""user_id":"artem","from_number":"anonymous","from_name":"","to_number":"204"}}"#
            let answer = try await deliver(
                setup.server, body, signature: CallEvents.signature(body, secret: Self.secret))
            #expect(answer.status == 200, "\(answer.body)")
            #expect(answer.object?["duplicate"] as? Bool == false)
            #expect(CallEvents.pushes(setup.mock).count == 2)
            let voip = try #require(CallEvents.pushes(setup.mock).first { $0.endpoint == .apns })
            #expect(voip.body.contains(#""created_by_id":"anonymous""#), "\(voip.body)")
            let logs = setup.server.logs.joined
            #expect(logs.contains("a DialStack webhook field was dropped"))
            #expect(logs.contains("data.from_number") && logs.contains("data.to_number"))
        }
    }
}
