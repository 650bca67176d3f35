import Foundation
import RegistryCore

extension CallEvent {
    /// The JSON fields of `POST /v1/call-events`, in the order errors and suggestions use.
    public static let fields = [
        "id", "type", "user_ids", "call", "caller", "to_number", "ringing_at", "ttl",
    ]

    /// Parses a request body, reporting every problem at once. Required: `id`, `type`,
    /// `user_ids`, `call.id`, `caller.id`. `null` counts as absent; unknown fields are refused,
    /// with a "did you mean" when one is close.
    public static func parse(_ body: JSONValue, arrivedAt: Date) throws(ValidationErrors) -> CallEvent {
        var reader = JSONObjectReader(body, known: fields)
        // Not an object: one error says it all, rather than every required field too.
        guard reader.errors.isEmpty else { throw ValidationErrors(reader.errors) }
        let id = reader.value("id", required: true, CallFieldRules.id)
        let type = reader.value("type", required: true) { raw, field throws(ValidationError) in
            try CallEventType(raw, field: field)
        }
        let userIDs = readUserIDs(&reader)
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
            ringingAt: ringingAt, ttl: ttl ?? defaultTTL, arrivedAt: arrivedAt)
    }

    private static func readUserIDs(_ reader: inout JSONObjectReader) -> [UserID]? {
        guard let value = reader.raw("user_ids", required: true) else { return nil }
        guard case .array(let elements) = value else {
            reader.fail(ValidationError(field: "user_ids", message: "must be an array, not \(value.typeName)"))
            return nil
        }
        var userIDs: [UserID] = []
        for (index, element) in elements.enumerated() {
            let field = "user_ids[\(index)]"
            guard case .string(let raw) = element else {
                reader.fail(ValidationError(field: field, message: "must be a string, not \(element.typeName)"))
                continue
            }
            do { userIDs.append(try UserID(raw, field: field)) } catch { reader.fail(error) }
        }
        guard userIDs.count == elements.count else { return nil }
        do { return try checkUsers(userIDs) } catch {
            reader.fail(error)
            return nil
        }
    }
}
