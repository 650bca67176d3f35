import Foundation
import MockPush
import PushTestSupport
import RegistryCrypto
import TestSupport
import Testing

/// A ring in each provider's `call_format`, as the mock APNs and FCM received it over TLS:
/// the seeds' shapes field for field, and SignalWire's invite sealed under the device's key.
@Suite("Call formats on the wire", .serialized)
struct CallFormatPushTests {
    /// The push server with both providers switched to `format` (credentials and endpoint kept),
    /// and `artem`'s VoIP token (registered with `extra`) and remote APNs token.
    func withFormat(
        _ format: String, templates: [String: Any]? = nil, _ extra: [String: Any] = [:],
        _ body: (PushServerSetup) async throws -> Void
    ) async throws {
        try await withMockPushServer { setup in
            let server = setup.server
            var ios: [String: Any] = [
                "service": "apns", "topic": "com.example.app", "endpoint": setup.mock.baseURL, "call_format": format,
            ]
            var android: [String: Any] = [
                "service": "fcm", "project_id": setup.mock.projectID, "endpoint": setup.mock.baseURL,
                "call_format": format,
            ]
            if let templates {
                ios["templates"] = templates
                android["templates"] = templates
            }
            #expect(try await server.request("PUT", "/v1/providers/ios", json: ios).status == 200)
            #expect(try await server.request("PUT", "/v1/providers/android", json: android).status == 200)
            _ = try await server.register(user: "artem", token: Tokens.apns(1), provider: "ios", type: "voip", extra)
            _ = try await server.register(user: "artem", token: Tokens.apns(2), provider: "ios", type: "apns")
            try await body(setup)
        }
    }

    func ring(_ setup: PushServerSetup, _ event: [String: Any]) async throws -> (voip: String, fcm: [String: Any]) {
        let response = try await setup.server.request("POST", "/v1/call-events", json: event)
        #expect(response.status == 200, "\(response.body)")
        let pushes = CallEvents.pushes(setup.mock)
        let voip = try #require(pushes.first { $0.endpoint == .apns })
        #expect(voip.headers["apns-push-type"] == "voip")
        let fcm = try CallEvents.fcmMessage(try #require(pushes.first { $0.endpoint == .fcm }))
        #expect((fcm["android"] as? [String: Any])?["priority"] as? String == "high")
        return (voip.body, fcm)
    }

    func registerFCM(_ server: TestServer, _ extra: [String: Any] = [:]) async throws -> TestResponse {
        try await server.register(user: "artem", token: Tokens.fcm(1), provider: "android", type: "fcm", extra)
    }

    @Test func dialstackSendsTheGuidesFourFields() async throws {
        try await withFormat("dialstack") { setup in
            _ = try await registerFCM(setup.server)
            let (voip, fcm) = try await ring(setup, CallEvents.body("evt_dialstack"))
            #expect(
                voip
                    == #"{"call_id":"call_id_123","from_number":"+14155551234","from_name":"John Doe","#
                    + #""to_number":"+14155559876"}"#)
            #expect(
                fcm["data"] as? NSDictionary
                    == (try CallEvents.object(
                        #"{"type":"call.mobile_push_wakeup","call_id":"call_id_123","from_number":"+14155551234","#
                            + #""from_name":"John Doe","to_number":"+14155559876"}"#)))
        }
    }

    @Test func reactNativeSendsTheIncomingCallEventOnBothTransports() async throws {
        try await withFormat("react-native") { setup in
            _ = try await registerFCM(setup.server)
            let (voip, fcm) = try await ring(setup, CallEvents.body("evt_react_native"))
            let incoming = try #require((try CallEvents.object(voip))["incomingCall"] as? NSDictionary)
            #expect((incoming["eventId"] as? String).flatMap(UUID.init(uuidString:)) != nil)
            #expect(incoming["serverCallId"] as? String == "call_id_123")
            #expect(incoming["hasVideo"] as? Bool == false)
            #expect(
                incoming["caller"] as? NSDictionary
                    == ["id": "john_doe", "displayName": "John Doe", "phoneNumber": "+14155551234"])
            #expect(incoming["metadata"] == nil)
            let data = try #require(fcm["data"] as? [String: String])
            #expect(data["messageType"] == "incomingCall")
            #expect(try CallEvents.object(try #require(data["incomingCall"])) == incoming)
        }
    }

    @Test func flexisipSendsItsPushKitBodyAndDataMapWithTheSIPInstanceAsUUID() async throws {
        let instance = "urn:uuid:0d8a5b6c-1f2e-4a3b-9c8d-7e6f5a4b3c2d"
        try await withFormat("flexisip", ["device_id": instance]) { setup in
            _ = try await registerFCM(setup.server, ["device_id": instance])
            var event = CallEvents.body("evt_flexisip")
            event["caller"] = ["id": "john_doe", "display_name": "John Doe", "sip_uri": "sip:john@example.com"]
            let (voip, fcm) = try await ring(setup, event)
            let body = try CallEvents.object(voip)
            let aps = try #require(body["aps"] as? NSDictionary)
            #expect(aps["loc-key"] as? String == "IC_MSG" && aps["sound"] as? String == "")
            #expect(aps["loc-args"] as? [String] == ["John Doe"])
            #expect(aps["call-id"] as? String == "call_id_123" && aps["uuid"] as? String == instance)
            #expect(body["from-uri"] as? String == "sip:john@example.com")
            #expect(body["display-name"] as? String == "John Doe")
            #expect(body["customPayload"] as? NSDictionary == [:])
            #expect((body["pn_ttl"] as? Int).map { (25...30).contains($0) } == true)
            let data = try #require(fcm["data"] as? [String: String])
            #expect(data["uuid"] == instance && data["form-uri"] == "sip:john@example.com")
            #expect(data["sip-from"] == "John Doe" && data["call-id"] == "call_id_123" && data["loc-key"] == "")
        }
    }

    /// A resent Flexisip ring carries what is left of its window when the resend starts, not what
    /// was left when the first attempt was rendered.
    @Test func aResentFlexisipRingCarriesWhatIsLeftWhenItIsResent() async throws {
        try await withFormat("flexisip") { setup in
            setup.mock.server.script(
                MockReply(
                    service: .apns, token: Tokens.apns(1), status: 503, reason: "ServiceUnavailable", retryAfter: 2))
            let response = try await setup.server.request(
                "POST", "/v1/call-events", json: CallEvents.body("evt_flexisip_resent"))
            #expect(response.status == 200, "\(response.body)")
            let attempts = CallEvents.pushes(setup.mock).filter { $0.deviceToken == Tokens.apns(1) }
            #expect(attempts.map(\.status) == [503, 200])
            let ttls = try attempts.map { try CallEvents.object($0.body)["pn_ttl"] as? Int }
            // Two seconds or more apart: whole seconds rounded up differ by at least 2.
            #expect(ttls.count == 2 && (ttls[1] ?? .max) <= (ttls[0] ?? 0) - 2, "pn_ttl \(ttls)")
        }
    }

    /// SignalWire: the FCM push carries the payload as JSON text in `notification.body`; the
    /// device that asked for a key gets `invite` sealed under it, which opens with the key the
    /// registration returned and with no other; the VoIP device without a key gets `none`.
    @Test func signalwireSealsTheInviteUnderTheDevicesKey() async throws {
        try await withFormat("signalwire") { setup in
            let registered = try await registerFCM(setup.server, ["payload_encryption": "aes_256_gcm"])
            let key = Array(try #require(Data(base64Encoded: registered.object?["payload_key"] as? String ?? "")))
            let (voip, fcm) = try await ring(setup, CallEvents.body("evt_signalwire"))
            let notification = try #require((fcm["notification"] as? [String: Any])?["body"] as? String)
            let sealed = try CallEvents.object(notification)
            #expect(sealed["encryption_type"] as? String == "aes_256_gcm")
            #expect(sealed["type"] as? String == "call_invite" && sealed["with_video"] as? String == "false")
            let invite = Array(try #require(Data(base64Encoded: sealed["invite"] as? String ?? "")))
            let iv = Array(try #require(Data(base64Encoded: sealed["iv"] as? String ?? "")))
            let tag = Array(try #require(Data(base64Encoded: sealed["tag"] as? String ?? "")))
            #expect(try AESGCM.open(AESGCM.Box(ciphertext: invite, tag: tag), key: key, nonce: iv) != nil)
            var tampered = tag
            tampered[0] ^= 1
            #expect(try AESGCM.open(AESGCM.Box(ciphertext: invite, tag: tampered), key: key, nonce: iv) == nil)
            let alert = try #require((try CallEvents.object(voip))["aps"] as? NSDictionary)
            #expect((alert["alert"] as? NSDictionary)?["encryption_type"] as? String == "none")
            // The key is in no log line.
            #expect(!setup.server.logs.joined.contains(registered.object?["payload_key"] as? String ?? "-"))
        }
    }

    /// The provider's templates fill the Stream alert's title and body.
    @Test func streamTemplatesFillTheMissedCallAlert() async throws {
        let templates = [
            "call.missed": ["title": "Missed call", "body": "You missed a call from {{ user.display_name }}"]
        ]
        try await withFormat("stream", templates: templates) { setup in
            let response = try await setup.server.request(
                "POST", "/v1/call-events", json: CallEvents.body("evt_templates", type: "call.missed"))
            #expect(response.status == 200)
            let alert = try #require(CallEvents.pushes(setup.mock).first { $0.endpoint == .apns })
            #expect(alert.headers["apns-push-type"] == "alert")
            let aps = try #require((try CallEvents.object(alert.body))["aps"] as? NSDictionary)
            #expect(
                aps["alert"] as? NSDictionary == ["title": "Missed call", "body": "You missed a call from John Doe"])
        }
    }
}
