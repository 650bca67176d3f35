import Foundation
import RegistryCore

/// A DialStack webhook body, once its signature checked out. `call.mobile_push_wakeup` becomes a
/// `call.ring` for `data.user_id`; every other type is acknowledged and ignored.
///
/// The mapping: the webhook's `id` is the event id (so a redelivery is a duplicate, never a
/// second ring); `data.call_id` the call id; the caller's id `data.from_number` as sent
/// (`anonymous` when DialStack sends none), its phone number the same when it is E.164, its
/// display name `data.from_name`; `data.to_number`; `data.ringing_at` starts the ttl (default:
/// the arrival time, 30 s).
///
/// Read leniently, as a third party's body: only what a ring truly needs (`id`, `type`,
/// `data.user_id`, `data.call_id`) refuses it. An optional field that does not parse (a withheld
/// number sent as "anonymous", an extension, a short code, a clock far ahead) is dropped and
/// reported in `Wakeup.dropped`, never a reason for a 422 that every redelivery would get too.
/// Fields this does not read are ignored: DialStack adds fields as it likes.
public enum DialStackWebhook {
    public static let wakeupEventType = "call.mobile_push_wakeup"
    /// The caller id when the number is withheld.
    public static let anonymousCaller = "anonymous"

    public enum Event: Sendable, Hashable {
        /// The ring, and the optional fields left out of it, each with why.
        case wakeup(CallEvent, dropped: [ValidationError])
        case ignored(type: String)
    }

    static let dataFields = ["call_id", "user_id", "from_number", "from_name", "to_number", "ringing_at"]

    /// Errors name the webhook's own fields (`data.user_id`).
    public static func parse(_ body: JSONValue, arrivedAt: Date) throws(ValidationErrors) -> Event {
        var reader = JSONObjectReader(body, known: ["id", "type", "data"], ignoresUnknownFields: true)
        guard let type = reader.string("type", required: true) else { throw ValidationErrors(reader.errors) }
        guard type == wakeupEventType else { return .ignored(type: type) }
        let id = reader.value("id", required: true, CallFieldRules.id)
        let wakeup = reader.object("data", known: dataFields, required: true) { data in
            Wakeup(&data, arrivedAt: arrivedAt)
        }
        try reader.finish()
        guard let id, let wakeup, let userID = wakeup.userID, let callID = wakeup.callID else {
            throw ValidationErrors(reader.errors)  // Unreachable: every nil above recorded an error.
        }
        let event = try CallEvent(
            id: id, type: .ring, userIDs: [userID], call: CallDetails(id: callID),
            caller: Caller(
                id: wakeup.callerID ?? anonymousCaller, displayName: wakeup.fromName,
                phoneNumber: wakeup.fromNumber?.value),
            toNumber: wakeup.toNumber?.value, ringingAt: wakeup.ringingAt, arrivedAt: arrivedAt)
        return .wakeup(event, dropped: wakeup.dropped)
    }

    /// The `data` object's fields, each checked under its webhook name: the required ones in
    /// `data`'s errors, the optional ones in `dropped`. Empty numbers and names count as not given.
    private struct Wakeup {
        let callID: String?
        let userID: UserID?
        /// `from_number` as sent, when it is usable as an id (an extension, "anonymous").
        let callerID: String?
        let fromNumber: PhoneNumber?
        let fromName: String?
        let toNumber: PhoneNumber?
        let ringingAt: Date?
        let dropped: [ValidationError]

        init(_ data: inout JSONObjectReader, arrivedAt: Date) {
            callID = data.value("call_id", required: true, CallFieldRules.id)
            userID = data.value("user_id", required: true) { raw, field throws(ValidationError) in
                try UserID(raw, field: field)
            }
            // A copy whose new errors are the dropped fields: they never reach `data`'s.
            var optional = data
            let before = optional.errors.count
            let from = optional.string("from_number").flatMap { $0.isEmpty ? nil : $0 }
            callerID = from.flatMap { try? CallFieldRules.id($0, field: "") }
            var number: PhoneNumber?
            if let from {
                do throws(ValidationError) { number = try PhoneNumber(from, field: optional.name("from_number")) } catch
                {
                    optional.fail(error)
                }
            }
            fromNumber = number
            fromName =
                optional.value("from_name") { raw, field throws(ValidationError) in
                    try CallFieldRules.text(raw, field: field)
                } ?? nil
            toNumber = optional.value("to_number", Self.optionalNumber) ?? nil
            ringingAt = optional.value("ringing_at") { raw, field throws(ValidationError) in
                let date = try CallFieldRules.timestamp(raw, field: field)
                try CallEvent.checkRingingAt(date, arrivedAt: arrivedAt, field: field)
                return date
            }
            dropped = Array(optional.errors.dropFirst(before))
        }

        private static func optionalNumber(_ raw: String, field: String) throws(ValidationError) -> PhoneNumber? {
            raw.isEmpty ? nil : try PhoneNumber(raw, field: field)
        }
    }
}
