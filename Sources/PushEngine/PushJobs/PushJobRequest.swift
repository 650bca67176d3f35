import CallPush
import Foundation
import PushRules
import RegistryCore

/// A push accepted as a job: the `POST /v1/push` body with more than 1,000 users or
/// `"async": true`, or the first line of an NDJSON body (`JobLines`). The message rules
/// are `PushRequest`'s, so a job refuses what a synchronous push refuses; only the users (up to
/// 1,000,000) and the deadline (default 1 hour, at most 24) differ, and a job never rings
/// (`VoIPPushRule`).
package struct PushJobRequest {
    /// The body as stored with the job: without `user_ids`, `async` and `deadline`.
    package let payload: [String: JSONValue]
    package let push: PushRequest
    package let users: [UserID]
    package let deadline: CompactDuration

    static let maximumUsers = CallEvent.maxJobUsers
    static let defaultDeadline = CompactDuration(seconds: 3600)
    package static let maximumDeadline = CompactDuration(seconds: 86_400)
    package static let kind = "push"

    /// Whether a `POST /v1/push` body asks for a job rather than an answer with every result
    /// (an `async` that is not a boolean too: the job's rules name it).
    package static func isJob(_ body: JSONValue) -> Bool {
        guard let object = body.objectValue else { return false }
        return (object["async"].map { $0 != .bool(false) } ?? false)
            || (object["user_ids"]?.arrayValue?.count ?? 0) > PushRequest.maximumUsers
    }

    /// A body that is not a job, without its `"async": false`.
    package static func synchronous(_ body: JSONValue) -> JSONValue {
        guard var object = body.objectValue, object["async"] != nil else { return body }
        object["async"] = nil
        return .object(object)
    }

    /// A whole job from a JSON body; `streamed` is the NDJSON header line, whose users follow on
    /// lines of their own (and so must not be in it).
    package static func parse(_ body: JSONValue, streamed: Bool = false, now: Date = Date()) throws(ValidationErrors)
        -> PushJobRequest
    {
        guard var object = body.objectValue else {
            throw ValidationErrors([ValidationError(field: "", message: "must be a JSON object, not \(body.typeName)")])
        }
        var errors: [ValidationError] = []
        if let async = object.removeValue(forKey: "async"), async != .bool(true), async != .bool(false) {
            errors.append(ValidationError(field: "async", message: "must be true or false"))
        }
        var users: [UserID] = []
        let listed = object.removeValue(forKey: "user_ids")
        if streamed {
            if listed != nil {
                errors.append(ValidationError(field: "user_ids", message: "follow the first line, one per line"))
            }
        } else {
            users = parseUsers(listed, errors: &errors)
        }
        var deadline = defaultDeadline
        if let value = object.removeValue(forKey: "deadline") {
            do throws(ValidationError) {
                guard let raw = value.stringValue else {
                    throw ValidationError(field: "deadline", message: "must be a duration like 30s, 5m or 1h")
                }
                deadline = try CompactDuration(raw, field: "deadline")
                guard deadline.seconds <= maximumDeadline.seconds else {
                    throw ValidationError(field: "deadline", message: "must be at most \(maximumDeadline) for a job")
                }
            } catch {
                errors.append(error)
            }
        }
        var push: PushRequest?
        do throws(ValidationErrors) {
            push = try request(from: object, acceptedAt: now)
            errors += push.map(VoIPPushRule.checkJob) ?? []
        } catch {
            errors += error.errors
        }
        guard errors.isEmpty, let push else { throw ValidationErrors(errors) }
        return PushJobRequest(payload: object, push: push, users: users, deadline: deadline)
    }

    /// The push a stored payload describes, with `apns.expiration` counted from when the job was
    /// accepted. `PushRequest` wants one to 1,000 users; the job's own are in its recipients, so
    /// one stands in for them here and is never used.
    static func request(from payload: [String: JSONValue], acceptedAt: Date) throws(ValidationErrors) -> PushRequest {
        var probe = payload
        probe["user_ids"] = .array([.string("push-job")])
        return try PushRequest.parse(.object(probe), now: acceptedAt)
    }

    private static func parseUsers(_ value: JSONValue?, errors: inout [ValidationError]) -> [UserID] {
        guard let array = value?.arrayValue, (1...maximumUsers).contains(array.count) else {
            errors.append(ValidationError(field: "user_ids", message: "must be an array of 1–\(maximumUsers) user ids"))
            return []
        }
        var users: [UserID] = []
        users.reserveCapacity(array.count)
        for (index, item) in array.enumerated() {
            do throws(ValidationError) {
                guard let raw = item.stringValue else {
                    throw ValidationError(
                        field: "user_ids[\(index)]", message: "must be a string, not \(item.typeName)")
                }
                users.append(try UserID(raw, field: "user_ids[\(index)]"))
            } catch {
                // Enough to correct the body; a million errors would not help.
                if errors.count < 100 { errors.append(error) }
            }
        }
        return users
    }
}
