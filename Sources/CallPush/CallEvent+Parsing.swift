import Foundation
import RegistryCore

extension CallEvent {
    /// The JSON fields of `POST /v1/call-events`, in the order errors and suggestions use.
    /// `async` asks for a push job whatever the number of users; it is not part of the event.
    public static let fields = [
        "id", "type", "user_ids", "call", "caller", "to_number", "ringing_at", "ttl", "async",
    ]

    /// Where a body's users are.
    public enum UserListing: Sendable {
        /// In `user_ids`, 1 to `maxUsers`: an answer lists every device's result.
        case inline
        /// In `user_ids`, 1 to `maxJobUsers`: the event is sent as a push job.
        case job
        /// On NDJSON lines after the event, which must not have `user_ids`: a push job too.
        case streamed
    }

    /// Whether a `POST /v1/call-events` body asks for a push job: more than `maxUsers` user ids,
    /// or an `async` other than `false` (one that is not a boolean is named by the job's parse).
    public static func isJob(_ body: JSONValue) -> Bool {
        guard let object = body.objectValue else { return false }
        return (object["async"].map { $0 != .bool(false) && $0 != .null } ?? false)
            || (object["user_ids"]?.arrayValue?.count ?? 0) > maxUsers
    }

    /// Parses a request body, reporting every problem at once. Required: `id`, `type`,
    /// `user_ids` (unless streamed), `call.id`, `caller.id`. `null` counts as absent; unknown
    /// fields are refused, with a "did you mean" when one is close.
    public static func parse(_ body: JSONValue, arrivedAt: Date, users listing: UserListing = .inline)
        throws(ValidationErrors) -> CallEvent
    {
        var reader = JSONObjectReader(body, known: fields)
        // Not an object: one error says it all, rather than every required field too.
        guard reader.errors.isEmpty else { throw ValidationErrors(reader.errors) }
        let id = reader.value("id", required: true, CallFieldRules.id)
        let type = reader.value("type", required: true) { raw, field throws(ValidationError) in
            try CallEventType(raw, field: field)
        }
        _ = reader.bool("async")
        let userIDs: [UserID]?
        switch listing {
        case .inline: userIDs = readUserIDs(&reader, maximum: maxUsers, dropRepeats: true)
        case .job: userIDs = readUserIDs(&reader, maximum: maxJobUsers, dropRepeats: false)
        case .streamed:
            if reader.raw("user_ids") != nil {
                reader.fail(ValidationError(field: "user_ids", message: "follow the first line, one per line"))
            }
            userIDs = []
        }
        let call = reader.object("call", known: CallDetails.fields, required: true, CallDetails.read)
        let caller = reader.object("caller", known: Caller.fields, required: true, Caller.read)
        let toNumber = reader.value("to_number", PhoneNumber.init)
        let ringingAt = reader.value("ringing_at") { raw, field throws(ValidationError) in
            let date = try CallFieldRules.timestamp(raw, field: field)
            try checkRingingAt(date, arrivedAt: arrivedAt, field: field)
            return date
        }
        let ttl = reader.value("ttl") { raw, field throws(ValidationError) in try CompactDuration(raw, field: field) }
        if let type, let ttl {
            do { try checkTTL(ttl, type: type) } catch { reader.fail(error) }
        }
        try reader.finish()
        guard let id, let type, let userIDs, let call, let caller else {
            // Unreachable: every nil above recorded an error, so finish() threw.
            throw ValidationErrors([ValidationError(field: "", message: "invalid call event")])
        }
        return CallEvent(
            validatedID: id, type: type, userIDs: userIDs, call: call, caller: caller, toNumber: toNumber,
            ringingAt: ringingAt, ttl: ttl ?? type.defaultTTL, arrivedAt: arrivedAt)
    }

    private static func readUserIDs(_ reader: inout JSONObjectReader, maximum: Int, dropRepeats: Bool) -> [UserID]? {
        guard let value = reader.raw("user_ids", required: true) else { return nil }
        guard case .array(let elements) = value else {
            reader.fail(ValidationError(field: "user_ids", message: "must be an array, not \(value.typeName)"))
            return nil
        }
        var userIDs: [UserID] = []
        for (index, element) in elements.enumerated() {
            let field = "user_ids[\(index)]"
            do throws(ValidationError) {
                guard case .string(let raw) = element else {
                    throw ValidationError(field: field, message: "must be a string, not \(element.typeName)")
                }
                userIDs.append(try UserID(raw, field: field))
            } catch {
                // Enough to correct the body; a million errors would not help.
                if reader.errors.count < 100 { reader.fail(error) }
            }
        }
        guard userIDs.count == elements.count else { return nil }
        do { return try checkUsers(userIDs, maximum: maximum, dropRepeats: dropRepeats) } catch {
            reader.fail(error)
            return nil
        }
    }
}
