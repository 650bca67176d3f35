import Encodings
import Foundation
import RegistryCore
import RegistryCrypto

extension CallEvent {
    /// The event as sorted, compact JSON with every default filled in (`ttl`, `call.type`,
    /// `has_video`) and empty display names left out, so two bodies that mean the same event give
    /// the same bytes. `ringing_at` is in only when the client gave it: the arrival time of a retry
    /// differs from the first one's.
    public var canonicalJSON: PayloadJSON { json(ringingAt: ringingAtGiven ? ringingAt : nil, users: userIDs) }

    /// SHA-256 of `canonicalJSON`, hex: what "the same id with a different body" compares.
    public var digest: String { Hex.encode(SHA256.hash(canonicalJSON.bytes)) }

    /// The whole event as `receiver`'s phone gets it in SignalWire's `invite`: `ringing_at`
    /// always in, keys sorted, and `user_ids` that user only. The other callees are none of this
    /// phone's business, and a thousand of them would pass the payload limit.
    public func fullJSON(receiver: UserID) -> PayloadJSON { json(ringingAt: ringingAt, users: [receiver]) }

    /// The event as a push job keeps it, without its users (they are the job's recipients) and
    /// with `ringing_at` always in: what `parse(_:arrivedAt:users: .streamed)` reads back.
    public var jobJSON: PayloadJSON { json(ringingAt: ringingAt, users: nil) }

    /// `canonicalJSON` without `user_ids`: what `CallEventJobDigest` starts from.
    var canonicalJSONWithoutUsers: PayloadJSON { json(ringingAt: ringingAtGiven ? ringingAt : nil, users: nil) }

    /// `users` nil leaves `user_ids` out.
    private func json(ringingAt: Date?, users: [UserID]?) -> PayloadJSON {
        var members: [PayloadJSON.Member] = [
            .init("call", callJSON),
            .init("caller", callerJSON),
            .init("id", .string(id)),
        ]
        if let ringingAt { members.append(.init("ringing_at", .string(RFC3339.format(ringingAt)))) }
        if let toNumber { members.append(.init("to_number", .string(toNumber.value))) }
        members.append(.init("ttl", .string(ttl.description)))
        members.append(.init("type", .string(type.rawValue)))
        if let users { members.append(.init("user_ids", .array(users.map { .string($0.value) }))) }
        return .object(members)
    }

    private var callJSON: PayloadJSON {
        var members: [PayloadJSON.Member] = []
        if let displayName = call.displayName { members.append(.init("display_name", .string(displayName))) }
        members.append(.init("has_video", .bool(call.hasVideo)))
        members.append(.init("id", .string(call.id)))
        if let metadata = call.metadata { members.append(.init("metadata", PayloadJSON(sorting: .object(metadata)))) }
        if let startedAt = call.startedAt { members.append(.init("started_at", .string(RFC3339.format(startedAt)))) }
        members.append(.init("type", .string(call.type)))
        return .object(members)
    }

    private var callerJSON: PayloadJSON {
        let optional: [(String, String?)] = [
            ("avatar_url", caller.avatarURL), ("display_name", caller.displayName), ("email", caller.email),
            ("id", caller.id), ("phone_number", caller.phoneNumber?.value), ("sip_uri", caller.sipURI),
        ]
        return .object(optional.compactMap { key, value in value.map { .init(key, .string($0)) } })
    }
}
