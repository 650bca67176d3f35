import Encodings
import Foundation
import RegistryCore

/// The React Native VoIP module's `incomingCall` event: nested under `incomingCall` in the VoIP
/// payload, and as a JSON string beside `messageType: incomingCall` in the FCM data map. Absent
/// optional fields are left out, not null.
enum ReactNativePayload {
    static func render(_ service: PushService, _ context: RenderContext) -> PushPayload {
        let incomingCall = event(context)
        switch service {
        case .apns:
            return .apns(["incomingCall": incomingCall])
        case .fcm:
            return .fcmData([("messageType", "incomingCall"), ("incomingCall", incomingCall.text)])
        }
    }

    private static func event(_ context: RenderContext) -> PayloadJSON {
        let event = context.event
        var members: [PayloadJSON.Member] = [
            .init("eventId", .string(NameBasedUUID.eventUUID(event.id))),
            .init("serverCallId", .string(event.call.id)),
            .init("hasVideo", .bool(event.call.hasVideo)),
        ]
        if let startedAt = event.call.startedAt { members.append(.init("startedAt", .string(milliseconds(startedAt)))) }
        let caller = event.caller
        let optional: [(String, String?)] = [
            ("displayName", caller.displayName), ("avatarUrl", caller.avatarURL),
            ("phoneNumber", caller.phoneNumber?.value), ("email", caller.email),
        ]
        let callerMembers =
            [PayloadJSON.Member("id", .string(caller.id))]
            + optional.compactMap { key, value in value.map { .init(key, .string($0)) } }
        members.append(.init("caller", .object(callerMembers)))
        if let metadata = event.call.metadata {
            members.append(.init("metadata", PayloadJSON(sorting: .object(metadata))))
        }
        return .object(members)
    }

    /// RFC 3339 in milliseconds, as the module's own example writes it (`2026-01-15T19:42:11.000Z`):
    /// a JavaScript `Date` reads exactly three fraction digits everywhere.
    private static func milliseconds(_ date: Date) -> String {
        RFC3339.format(date).prefix(23) + "Z"
    }
}
