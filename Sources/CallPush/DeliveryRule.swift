import Encodings
import Foundation
import PushRules
import RegistryCore

/// Which token gets which push, the rule every seed document insists on:
///
/// - `call.ring`: a VoIP token gets a PushKit push (`apns-push-type: voip`, topic
///   `<bundle>.voip`, priority 10, expiring at `ringing_at` + ttl); an FCM token gets a
///   high-priority data message whose `android.ttl` is what is left of the ttl. A remote APNs
///   token is not rung: iOS would show a silent banner for a call it cannot answer.
/// - every other type: a remote APNs token gets an alert push, an FCM token a data message. A
///   VoIP token gets nothing — iOS terminates an app that receives a VoIP push without reporting
///   a call.
/// - once `ringing_at` + ttl has passed, nothing is sent (`expired`): a late ring is worse than
///   none.
public enum DeliveryRule {
    /// `bundleID` is the APNs provider's topic; without it an APNs token is skipped.
    public static func decide(_ event: CallEvent, tokenType: TokenType, bundleID: String?, now: Date)
        -> CallPushPlan
    {
        switch (event.type.isRinging, tokenType) {
        case (true, .apns):
            return .skipped(
                reason: "remote APNs tokens are not rung: a ring goes to the device's VoIP (PushKit) token")
        case (false, .voip):
            return .skipped(
                reason: "a VoIP token only receives rings (iOS terminates an app that gets a VoIP push without "
                    + "reporting a call); \(event.type.rawValue) goes to a remote APNs token")
        default:
            break
        }
        let remaining = event.remaining(at: now)
        guard remaining > 0 else {
            return .expired(reason: "ringing_at + ttl (\(RFC3339.format(event.expiresAt))) has passed")
        }
        switch tokenType {
        case .voip, .apns:
            // The sender sends on the provider's topic (`.voip` appended for PushKit); without one
            // there is nothing to send on.
            guard bundleID != nil else { return .skipped(reason: "the APNs provider has no topic (bundle id)") }
            return .apns(sendOptions(event, voip: tokenType == .voip))
        case .fcm:
            return .fcm(ttl: .milliseconds(Int64((remaining * 1000).rounded(.down))))
        }
    }

    /// Priority 10 (deliver now), expiring when the event does. An alert's `apns-collapse-id` is
    /// the event's stable UUID, so the same event delivered twice (an answer lost on a dead
    /// connection, then resent) replaces its banner instead of showing a second one; PushKit
    /// delivers every VoIP push, and a ring's app dedupes on the payload's id instead.
    private static func sendOptions(_ event: CallEvent, voip: Bool) -> APNsSendOptions {
        // Valid by construction: priority 10 and a 36-byte UUID as collapse id are always accepted.
        try! APNsSendOptions(
            pushType: voip ? .voip : .alert, priority: 10,
            expiration: Date(timeIntervalSince1970: event.expiresAt.timeIntervalSince1970.rounded(.down)),
            collapseID: voip ? nil : NameBasedUUID.eventUUID(event.id))
    }
}
