import Encodings
import Foundation
import RegistryCore

/// A `POST /v1/push` body, constructed only valid:
///
/// ```json
/// {"user_ids": ["alice"], "types": ["voip", "fcm"], "providers": ["ios-app"],
///  "apns": {"push_type": "voip", "priority": 10, "expiration": "30s", "collapse_id": "c1", "payload": {…}},
///  "fcm": {"message": {"data": {…}, "android": {"priority": "high", "ttl": "30s"}}},
///  "deadline": "30s"}
/// ```
///
/// One to 1,000 users; `types` and `providers` narrow the devices; a device gets the section of
/// its service. Every problem is reported at once, each named by its field.
public struct PushRequest: Sendable {
    public struct APNsSection: Sendable {
        public let options: APNsSendOptions
        /// The payload as sent, compact JSON.
        public let payload: [UInt8]
    }

    public let userIDs: [UserID]
    public let types: Set<TokenType>?
    public let providers: Set<ProviderName>?
    public let apns: APNsSection?
    /// The FCM v1 `message` without its target; the sender adds each device's token.
    public let fcmMessage: FCMMessage?
    public let deadline: Duration

    public static let maximumUsers = 1000
    public static let defaultDeadline = CompactDuration(seconds: 30)
    public static let maximumDeadline = CompactDuration(seconds: 300)
    static let fields: Set = ["user_ids", "types", "providers", "apns", "fcm", "deadline"]
    static let apnsFields: Set = ["push_type", "priority", "expiration", "collapse_id", "payload"]

    /// `now` turns `apns.expiration` (a duration) into the moment APNs stops trying.
    public static func parse(_ body: JSONValue, now: Date = Date()) throws(ValidationErrors) -> PushRequest {
        guard let object = body.objectValue else {
            throw ValidationErrors([ValidationError(field: "", message: "must be a JSON object, not \(body.typeName)")])
        }
        // Filtered before sorting: the keys are nearly always all known, and sorting them all
        // allocated an array per push.
        var errors = object.keys.filter { !fields.contains($0) }.sorted().map {
            ValidationError(field: $0, message: "is not a field; expected \(fields.sorted().joined(separator: ", "))")
        }
        let userIDs = parseUsers(object["user_ids"], errors: &errors)
        let types = parseList(object["types"], field: "types", errors: &errors) { raw, field throws(ValidationError) in
            try TokenType(raw, field: field)
        }
        let providers = parseList(object["providers"], field: "providers", errors: &errors) {
            raw, field throws(ValidationError) in try ProviderName(raw, field: field)
        }
        let apns = object["apns"].flatMap { parseAPNs($0, now: now, errors: &errors) }
        var fcmMessage: FCMMessage?
        if let fcm = object["fcm"] {
            if let message = fcm.objectValue?["message"], fcm.objectValue?.count == 1 {
                let problems = FCMMessageRules.problems(in: message)
                errors += problems
                if problems.isEmpty { fcmMessage = message.objectValue.map(FCMMessage.init) }
            } else {
                errors.append(ValidationError(field: "fcm", message: "must be an object with only a message"))
            }
        }
        if object["apns"] == nil, object["fcm"] == nil {
            errors.append(ValidationError(field: "apns", message: "or fcm is required: what to send"))
        }
        var deadline = defaultDeadline
        if let value = object["deadline"] {
            if let duration = parseDuration(value, field: "deadline", errors: &errors) {
                if duration.seconds <= maximumDeadline.seconds {
                    deadline = duration
                } else {
                    errors.append(ValidationError(field: "deadline", message: "must be at most \(maximumDeadline)"))
                }
            }
        }
        guard errors.isEmpty, let userIDs else { throw ValidationErrors(errors) }
        return PushRequest(
            userIDs: userIDs, types: types.map(Set.init), providers: providers.map(Set.init), apns: apns,
            fcmMessage: fcmMessage, deadline: deadline.duration)
    }

    /// Whether a device is targeted at all: filtered-out devices are not listed.
    public func targets(type: TokenType, provider: ProviderName) -> Bool {
        (types?.contains(type) ?? true) && (providers?.contains(provider) ?? true)
    }

    private static func parseUsers(_ value: JSONValue?, errors: inout [ValidationError]) -> [UserID]? {
        guard let array = value?.arrayValue, (1...maximumUsers).contains(array.count) else {
            errors.append(ValidationError(field: "user_ids", message: "must be an array of 1–\(maximumUsers) user ids"))
            return nil
        }
        var seen = Set<UserID>()
        var users: [UserID] = []
        users.reserveCapacity(array.count)
        for (index, item) in array.enumerated() {
            let field = "user_ids[\(index)]"
            guard let raw = item.stringValue else {
                errors.append(ValidationError(field: field, message: "must be a string, not \(item.typeName)"))
                continue
            }
            do throws(ValidationError) {
                let user = try UserID(raw, field: field)
                // One user (a call's push) cannot repeat: no set for it.
                if array.count == 1 || seen.insert(user).inserted { users.append(user) }
            } catch {
                errors.append(error)
            }
        }
        return users
    }

    private static func parseList<T>(
        _ value: JSONValue?, field: String, errors: inout [ValidationError],
        _ parse: (String, String) throws(ValidationError) -> T
    ) -> [T]? {
        guard let value else { return nil }
        guard let array = value.arrayValue, !array.isEmpty else {
            errors.append(ValidationError(field: field, message: "must be a non-empty array of strings"))
            return nil
        }
        var items: [T] = []
        for (index, item) in array.enumerated() {
            do throws(ValidationError) {
                guard let raw = item.stringValue else {
                    throw ValidationError(
                        field: "\(field)[\(index)]", message: "must be a string, not \(item.typeName)")
                }
                items.append(try parse(raw, "\(field)[\(index)]"))
            } catch {
                errors.append(error)
            }
        }
        return items
    }

    private static func parseAPNs(_ value: JSONValue, now: Date, errors: inout [ValidationError]) -> APNsSection? {
        guard let object = value.objectValue else {
            errors.append(ValidationError(field: "apns", message: "must be an object, not \(value.typeName)"))
            return nil
        }
        let before = errors.count
        for key in object.keys.filter({ !apnsFields.contains($0) }).sorted() {
            errors.append(
                ValidationError(
                    field: "apns.\(key)",
                    message: "is not a field; expected \(apnsFields.sorted().joined(separator: ", "))"
                ))
        }
        var pushType: APNsPushType?
        if let raw = object["push_type"]?.stringValue {
            do throws(ValidationError) { pushType = try APNsPushType(raw) } catch { errors.append(error) }
        } else {
            errors.append(ValidationError(field: "apns.push_type", message: "is required: alert, voip, background, …"))
        }
        var priority: Int?
        if let value = object["priority"], value != .null {
            if let number = value.numberValue, let whole = Int(exactly: number) {
                priority = whole
            } else {
                errors.append(ValidationError(field: "apns.priority", message: "must be 10, 5 or 1"))
            }
        }
        let expiresIn = object["expiration"].flatMap {
            $0 == .null ? nil : parseDuration($0, field: "apns.expiration", errors: &errors)
        }
        var collapseID: String?
        if let value = object["collapse_id"], value != .null {
            collapseID = value.stringValue
            if collapseID == nil {
                errors.append(ValidationError(field: "apns.collapse_id", message: "must be a string"))
            }
        }
        var payload: [UInt8]?
        if let value = object["payload"], value.objectValue != nil {
            payload = compactJSON(value)
        } else {
            errors.append(ValidationError(field: "apns.payload", message: "must be the JSON object APNs delivers"))
        }
        guard let pushType else { return nil }
        let options: APNsSendOptions
        do throws(ValidationErrors) {
            options = try APNsSendOptions(
                pushType: pushType, priority: priority,
                expiration: expiresIn.map { now.addingTimeInterval($0.timeInterval) }, collapseID: collapseID)
        } catch {
            errors += error.errors
            return nil
        }
        guard errors.count == before, let payload else { return nil }
        return APNsSection(options: options, payload: payload)
    }

    private static func parseDuration(_ value: JSONValue, field: String, errors: inout [ValidationError])
        -> CompactDuration?
    {
        do throws(ValidationError) {
            guard let raw = value.stringValue else {
                throw ValidationError(field: field, message: "must be a duration like 30s, 5m or 1h")
            }
            return try CompactDuration(raw, field: field)
        } catch {
            errors.append(error)
            return nil
        }
    }

    /// Compact JSON with sorted keys, as every push body is written: what JSONEncoder writes with
    /// `.sortedKeys` and `.withoutEscapingSlashes`, and nothing for a number JSON cannot hold.
    public static func compactJSON(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        guard append(value, to: &output) else { return [] }
        return output
    }

    /// False when `value` holds an infinite or NaN number, which JSONEncoder refuses too.
    private static func append(_ value: JSONValue, to output: inout [UInt8]) -> Bool {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number):
            guard number.isFinite else { return false }
            JSONText.appendNumber(number, to: &output)
        case .string(let text): JSONText.appendString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                guard append(element, to: &output) else { return false }
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONText.appendString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                guard append(member.value, to: &output) else { return false }
            }
            output.append(UInt8(ascii: "}"))
        }
        return true
    }
}
