import CallPush
import Foundation
import PushRules
import RegistryCore

/// A composed call push as the senders take it: the APNs plan becomes the request headers, the
/// FCM content and plan an FCM v1 `message` (the sender adds the token).
enum CallPushMessage {
    /// Nil when the composer decided not to send (`skipped`, `expired`).
    static func message(for composed: ComposedPush) -> DeviceSend.Message? {
        switch (composed.decision, composed.payload) {
        case (.apns(let plan), .apns(let body)?):
            // Valid by construction: priority 10 and a 36-byte UUID as collapse id are always accepted.
            guard
                let options = try? APNsSendOptions(
                    pushType: plan.pushType == .voip ? .voip : .alert, priority: plan.priority,
                    expiration: Date(timeIntervalSince1970: TimeInterval(plan.expiration)), collapseID: plan.collapseID)
            else { return nil }
            return .apns(payload: body.bytes, options: options)
        case (.fcm(let plan), .fcm(let content)?):
            var message: [String: JSONValue] = [
                "android": .object(["priority": .string(plan.priority), "ttl": .string(plan.ttl)]),
                "data": .object(Dictionary(content.data.map { ($0.key, .string($0.value)) }) { _, last in last }),
            ]
            if let body = content.notificationBody { message["notification"] = .object(["body": .string(body)]) }
            return .fcm(message)
        default:
            return nil
        }
    }
}
