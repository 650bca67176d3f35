import Foundation
import RegistryCore

/// A DialStack webhook body, once its signature checked out. `call.mobile_push_wakeup` becomes a
/// `call.ring` for `data.user_id`; every other type is acknowledged and ignored.
///
/// The mapping: the webhook's `id` is the event id (so a redelivery is a duplicate, never a
/// second ring); `data.call_id` the call id; the caller's id and phone number `data.from_number`
/// (id `anonymous` when DialStack sends none), its display name `data.from_name`;
/// `data.to_number`; `data.ringing_at` starts the ttl (default 30 s). Fields this does not read
/// are ignored: DialStack adds fields as it likes and must not get a 422 for them.
public enum DialStackWebhook {
    public static let wakeupEventType = "call.mobile_push_wakeup"
    /// The caller id when the number is withheld.
    public static let anonymousCaller = "anonymous"

    public enum Event: Sendable, Hashable {
        case wakeup(CallEvent)
        case ignored(type: String)
    }

    static let dataFields = ["call_id", "user_id", "from_number", "from_name", "to_number", "ringing_at"]

    /// Errors name the webhook's own fields (`data.from_number`).
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
                id: wakeup.fromNumber?.value ?? anonymousCaller, displayName: wakeup.fromName,
                phoneNumber: wakeup.fromNumber?.value),
            toNumber: wakeup.toNumber?.value, ringingAt: wakeup.ringingAt, arrivedAt: arrivedAt)
        return .wakeup(event)
    }

    /// The `data` object's fields, each checked under its webhook name. Empty numbers and names
    /// count as not given.
    private struct Wakeup {
        let callID: String?
        let userID: UserID?
        let fromNumber: PhoneNumber?
        let fromName: String?
        let toNumber: PhoneNumber?
        let ringingAt: Date?

        init(_ data: inout JSONObjectReader, arrivedAt: Date) {
            callID = data.value("call_id", required: true, CallFieldRules.id)
            userID = data.value("user_id", required: true) { raw, field throws(ValidationError) in
                try UserID(raw, field: field)
            }
            fromNumber = data.value("from_number", Self.optionalNumber) ?? nil
            fromName =
                data.value("from_name") { raw, field throws(ValidationError) in
                    try CallFieldRules.text(raw, field: field)
                } ?? nil
            toNumber = data.value("to_number", Self.optionalNumber) ?? nil
            ringingAt = data.value("ringing_at") { raw, field throws(ValidationError) in
                let date = try CallFieldRules.timestamp(raw, field: field)
                try CallEvent.checkRingingAt(date, arrivedAt: arrivedAt, field: field)
                return date
            }
        }

        private static func optionalNumber(_ raw: String, field: String) throws(ValidationError) -> PhoneNumber? {
            raw.isEmpty ? nil : try PhoneNumber(raw, field: field)
        }
    }
}
