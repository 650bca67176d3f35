import CallPush
import Encodings
import Foundation
import RegistryCore

/// The seed documents' example values, shared by the tests.
enum Fixtures {
    /// 2026-04-10T14:30:00Z, the seeds' `ringing_at`.
    static let ringingAt = RFC3339.parse("2026-04-10T14:30:00Z")!
    /// Two seconds into the ring.
    static let now = ringingAt.addingTimeInterval(2)
    static let bundleID = "com.example.myapp"
    static let receiver = try! UserID("artem")

    /// The example body, as text.
    static let fullBody = """
        {"id": "evt_01jqr5k8m3n4p6q7r8s9t0u1v3", "type": "call.ring",
         "user_ids": ["artem"],
         "call": {"id": "call_id_123", "type": "default", "display_name": "", "has_video": false,
                  "started_at": "2026-04-10T14:30:00Z", "metadata": {"chatId": "abc-123"}},
         "caller": {"id": "john_doe", "display_name": "John Doe", "phone_number": "+14155551234",
                    "avatar_url": "https://example.com/john.png", "email": "john@example.com",
                    "sip_uri": "sip:john@example.com"},
         "to_number": "+14155559876", "ringing_at": "2026-04-10T14:30:00Z", "ttl": "30s"}
        """

    static func parse(_ text: String, arrivedAt: Date = now) throws(ValidationErrors) -> CallEvent {
        let body: JSONValue
        do { body = try JSONParser.parse(text) } catch {
            fatalError("test body is not JSON at byte \(error.offset): \(text)")
        }
        return try CallEvent.parse(body, arrivedAt: arrivedAt)
    }

    /// The example event with its type replaced.
    static func event(_ type: CallEventType) -> CallEvent {
        try! parse(fullBody.replacingOccurrences(of: "\"call.ring\"", with: "\"\(type.rawValue)\""))
    }

    /// The field names of a refusal, in order.
    static func fields(_ text: String, arrivedAt: Date = now) -> [String] {
        do {
            _ = try parse(text, arrivedAt: arrivedAt)
            return []
        } catch {
            return error.errors.map(\.field)
        }
    }

    static func errors(_ text: String, arrivedAt: Date = now) -> [ValidationError] {
        do {
            _ = try parse(text, arrivedAt: arrivedAt)
            return []
        } catch {
            return error.errors
        }
    }

    static let iOSVoIP = PushTarget(userID: receiver, tokenType: .voip, bundleID: bundleID)
    static let iOSRemote = PushTarget(userID: receiver, tokenType: .apns, bundleID: bundleID)
    static let android = PushTarget(userID: receiver, tokenType: .fcm)

    static let missedCallTemplates = NotificationTemplates(entries: [
        .missed: .init(
            title: try! PushTemplate("Missed call", field: "title"),
            body: try! PushTemplate("You missed a call from {{ user.display_name }}", field: "body"))
    ])

    static func composer(_ format: CallFormat, templates: NotificationTemplates = .none) -> CallPushComposer {
        CallPushComposer(format: format, templates: templates, sealer: AESGCMPayloadSealer())
    }

    /// The rendered bytes as text; fails the test when nothing was rendered.
    static func render(
        _ format: CallFormat, _ event: CallEvent, _ target: PushTarget,
        templates: NotificationTemplates = .none, at time: Date = now
    ) throws -> String {
        let composed = try composer(format, templates: templates).compose(event, for: target, now: time)
        guard let payload = composed.payload else {
            throw RenderFailure(plan: composed.plan)
        }
        return String(decoding: payload.bytes, as: UTF8.self)
    }

    struct RenderFailure: Error {
        let plan: CallPushPlan
    }

    /// Compacts a pretty-printed expected payload: drops the newlines and the indentation the
    /// test source uses, leaving spaces inside strings alone (none of the goldens has a string
    /// starting with spaces after a newline).
    static func compact(_ pretty: String) -> String {
        var output = ""
        var inString = false
        var escaped = false
        for character in pretty {
            if inString {
                output.append(character)
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
            } else if character == "\"" {
                inString = true
                output.append(character)
            } else if !character.isWhitespace {
                output.append(character)
            }
        }
        return output
    }
}
