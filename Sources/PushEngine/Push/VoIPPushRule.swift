import CallPush
import Foundation
import PushRules
import RegistryCore

/// A `voip` push is a call: PushKit wakes the app only to report one, at once, and a call rings
/// for about 30 s. So one goes out only while it can still ring: never from a push job (which
/// runs for up to a day), and never with a deadline or `apns.expiration` over a minute.
enum VoIPPushRule {
    /// The longest a ring is worth sending for: a call event's own limit.
    static let longestWindow = CallEvent.maxRingTTL

    /// A synchronous `POST /v1/push`: its deadline and expiration, counted from `now`.
    static func check(_ push: PushRequest, now: Date) throws(ValidationErrors) {
        guard let options = push.apns?.options, options.pushType == .voip else { return }
        var errors: [ValidationError] = []
        if push.deadline > longestWindow.duration {
            errors.append(tooLong("deadline"))
        }
        if let expiration = options.expiration, expiration.timeIntervalSince(now) > longestWindow.timeInterval {
            errors.append(tooLong("apns.expiration"))
        }
        if !errors.isEmpty { throw ValidationErrors(errors) }
    }

    /// A push job never carries a `voip` push.
    static func checkJob(_ push: PushRequest) -> [ValidationError] {
        guard push.apns?.options.pushType == .voip else { return [] }
        return [
            ValidationError(
                field: "apns.push_type",
                message:
                    "must not be voip in a push job: a VoIP push is a call, which rings for seconds; ring with "
                    + "POST /v1/call-events (or a synchronous POST /v1/push)")
        ]
    }

    private static func tooLong(_ field: String) -> ValidationError {
        ValidationError(
            field: field,
            message:
                "must be at most \(longestWindow) for a voip push: it is a call, and a ring arriving later is for "
                + "a call that is over")
    }
}
