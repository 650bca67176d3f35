import Foundation
import MockPush
import PushTestSupport
import RegistryCrypto
import TestSupport

/// Call events as a backend posts them, and what the mock push services received for them.
enum CallEvents {
    /// The seeds' call: Stream's `default:call_id_123` from John Doe to `artem`. `ringingAt` is
    /// left out when nil (the server takes the arrival time).
    static func body(
        _ id: String, type: String = "call.ring", users: [String] = ["artem"], ringingAt: Date? = nil,
        ttl: String? = nil
    ) -> [String: Any] {
        var body: [String: Any] = [
            "id": id, "type": type, "user_ids": users,
            "call": ["id": "call_id_123", "type": "default", "display_name": "", "has_video": false],
            "caller": ["id": "john_doe", "display_name": "John Doe", "phone_number": "+14155551234"],
            "to_number": "+14155559876",
        ]
        if let ringingAt { body["ringing_at"] = timestamp(ringingAt) }
        if let ttl { body["ttl"] = ttl }
        return body
    }

    static func timestamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    /// Now, to the second: what a `ringing_at` in a body can say exactly.
    static var wholeSecondNow: Date { Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)) }

    /// The Stream fields of the seed call pushed to `artem` as `type`, with `title` and `body`
    /// (a ring's are empty, as Stream sends them), in the seed's key order.
    static func streamFields(_ type: String, title: String = "", body: String = "") -> String {
        #"{"sender":"stream.video","type":"\#(type)","version":"v2","call_cid":"default:call_id_123","#
            + #""call_display_name":"","created_by_id":"john_doe","created_by_display_name":"John Doe","#
            + #""receiver_id":"artem","title":"\#(title)","body":"\#(body)"}"#
    }

    /// The push requests the mock received (token requests left out), oldest first.
    static func pushes(_ mock: MockPushFixture) -> [RecordedRequest] {
        mock.server.recordedRequests.filter { $0.endpoint != .oauth }
    }

    /// An FCM request's `message` object.
    static func fcmMessage(_ request: RecordedRequest) throws -> [String: Any] {
        let body = try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any]
        guard let message = body?["message"] as? [String: Any] else { throw TestFailure("no message in FCM body") }
        return message
    }

    static func object(_ json: String) throws -> NSDictionary {
        guard let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary else {
            throw TestFailure("not a JSON object: \(json)")
        }
        return object
    }

    /// `X-DialStack-Signature` for `body` signed with `secret` at `time`.
    static func signature(_ body: String, secret: String, at time: Date = Date()) -> String {
        let t = Int(time.timeIntervalSince1970)
        let mac = HMAC.sha256(key: Array(secret.utf8), data: Array("\(t).\(body)".utf8))
        return "t=\(t),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// A DialStack `call.mobile_push_wakeup` for `artem`, as compact JSON text (it is what is signed).
    static func wakeup(_ id: String, callID: String = "call_id_123") -> String {
        #"{"id":"\#(id)","type":"call.mobile_push_wakeup","created_at":"\#(timestamp(Date()))","#
            + #""data":{"call_id":"\#(callID)","user_id":"artem","from_number":"+14155551234","#
            + #""from_name":"John Doe","to_number":"+14155559876"}}"#
    }
}
