import Encodings
import Foundation
import RegistryCore

/// Flexisip's push bodies, every key spelled as Flexisip sends it (clients built against it read
/// exactly these): the PushKit body for a ring, the remote-notification body for the other
/// events, and one FCM data map for both on Android — Flexisip's Android pushes are always silent
/// data messages. The Android `form-uri` is Flexisip's spelling, kept on purpose.
///
/// `uuid` is the device's `+sip.instance` as the SIP route stored it, without angle brackets;
/// `from` is the caller's display name, else the SIP URI (else the number or id, so it is never
/// empty). `chat-room-addr` is left out: it only exists for group-chat invitations.
enum FlexisipPayload {
    /// Flexisip's default `pn-call-str`: the app localises it as "incoming call from %@".
    static let callLocKey = "IC_MSG"

    static func render(_ kind: PushKind, _ context: RenderContext) -> PushPayload {
        let values = Values(context)
        switch kind {
        case .voip:
            return .apns([
                "aps": [
                    "sound": "",
                    "loc-key": .string(callLocKey),
                    "loc-args": [.string(values.from)],
                    "call-id": .string(values.callID),
                    "uuid": .string(values.uid),
                    "send-time": .string(values.sendTime),
                ],
                "from-uri": .string(values.fromURI),
                "display-name": .string(values.fromName),
                "pn_ttl": .integer(context.remainingSeconds),
                "customPayload": [:],
            ])
        case .alert:
            return .apns([
                "aps": [
                    "alert": ["loc-key": .string(callLocKey), "loc-args": [.string(values.from)]],
                    "sound": "",
                    "mutable-content": 1,
                    "badge": 1,
                ],
                "from-uri": .string(values.fromURI),
                "display-name": .string(values.fromName),
                "call-id": .string(values.callID),
                "pn_ttl": .integer(context.remainingSeconds),
                "uuid": .string(values.uid),
                "send-time": .string(values.sendTime),
            ])
        case .data:
            return .fcmData([
                ("uuid", values.uid),
                ("form-uri", values.fromURI),
                ("display-name", values.fromName),
                ("call-id", values.callID),
                ("sip-from", values.from),
                ("loc-key", ""),
                ("loc-args", values.from),
                ("send-time", values.sendTime),
            ])
        }
    }

    /// Flexisip's template variables (`<uid>`, `<from-uri>`, …) for one push.
    private struct Values {
        let uid: String
        let fromURI: String
        let fromName: String
        let from: String
        let callID: String
        let sendTime: String

        init(_ context: RenderContext) {
            let caller = context.caller
            uid = context.target.deviceID.map { FlexisipPayload.withoutAngleBrackets($0.value) } ?? ""
            fromURI = caller.sipURI ?? ""
            fromName = caller.displayName ?? ""
            from = caller.displayName ?? caller.sipURI ?? caller.shownName
            callID = context.event.call.id
            sendTime = FlexisipPayload.sendTime(context.now)
        }
    }

    static func withoutAngleBrackets(_ text: String) -> String {
        guard text.hasPrefix("<"), text.hasSuffix(">"), text.count >= 2 else { return text }
        return String(text.dropFirst().dropLast())
    }

    /// `YYYY-MM-DD HH:mm:ss` in UTC, Flexisip's `<date>`: RFC 3339's first 19 characters with a
    /// space for the `T`.
    static func sendTime(_ date: Date) -> String {
        let text = RFC3339.format(date)
        return text.prefix(10) + " " + text.dropFirst(11).prefix(8)
    }
}
