import CallPush
import Foundation
import PushRules
import RegistryCore

/// A composed call push as the senders take it: the APNs plan becomes the request headers, the
/// FCM content and plan an FCM v1 `message` (the sender adds the token).
enum CallPushMessage {
    /// Nil when the composer decided not to send (`skipped`, `expired`). `recompose` composes the
    /// push again when it is called: each APNs attempt's body comes from it, so what a body says
    /// of the time left (Flexisip's `pn_ttl`) is what is left when the attempt starts. Should it
    /// compose nothing by then, the attempt sends the first body.
    static func message(for composed: ComposedPush, recompose: @escaping @Sendable () -> ComposedPush? = { nil })
        -> DeviceSend.Message?
    {
        switch (composed.decision, composed.payload) {
        case (.apns(let plan), .apns(let body)?):
            // Valid by construction: priority 10 and a 36-byte UUID as collapse id are always accepted.
            guard
                let options = try? APNsSendOptions(
                    pushType: plan.pushType == .voip ? .voip : .alert, priority: plan.priority,
                    expiration: Date(timeIntervalSince1970: TimeInterval(plan.expiration)), collapseID: plan.collapseID)
            else { return nil }
            let first = body.bytes
            return .apns(
                payload: {
                    guard case .apns(let again)? = recompose()?.payload else { return first }
                    return again.bytes
                }, options: options)
        case (.fcm(let plan), .fcm(let content)?):
            return .fcm(content.message(plan: plan))
        default:
            return nil
        }
    }
}
