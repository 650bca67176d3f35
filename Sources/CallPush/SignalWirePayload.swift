import Foundation
import RegistryCore

/// SignalWire's call-invite push. The core message (every value a string) goes under `aps.alert`
/// of a VoIP push on iOS, and as a JSON string in `notification.body` on Android — SignalWire's
/// SDK reads it there, the one FCM message here that is not data-only.
///
/// `invite` is the whole call event as JSON (its `user_ids` the receiving user only), deflated (a zlib stream), then — when the device has
/// a payload key — sealed with AES-256-GCM, then base64. A phone opens it in reverse: base64
/// decode, AES-256-GCM open with the key and the `iv`/`tag` (both base64), inflate, parse JSON.
/// Compressing ciphertext gains nothing, so the compression comes first. Without a key,
/// `encryption_type` is `none` and `iv`/`tag` are empty.
enum SignalWirePayload {
    static let version = "1"

    static func render(_ service: PushService, _ context: RenderContext, sealer: any PayloadSealer) throws
        -> PushPayload
    {
        let message = try message(context, sealer: sealer)
        switch service {
        case .apns:
            return .apns(["aps": ["alert": message]])
        case .fcm:
            return .fcm(["notification": ["body": .string(message.text)], "data": [:]])
        }
    }

    private static func message(_ context: RenderContext, sealer: any PayloadSealer) throws -> PayloadJSON {
        let event = context.event
        let compressed = try Deflate.compress(event.fullJSON(receiver: context.target.userID).bytes)
        let encryption: String
        let invite: [UInt8]
        var iv = ""
        var tag = ""
        if let key = context.target.payloadKey {
            let sealed = try sealer.seal(compressed, key: key)
            encryption = "aes_256_gcm"
            invite = sealed.ciphertext
            iv = base64(sealed.iv)
            tag = base64(sealed.tag)
        } else {
            encryption = "none"
            invite = compressed
        }
        let caller = event.caller
        return [
            "encryption_type": .string(encryption),
            "notification_uuid": .string(NameBasedUUID.eventUUID(event.id)),
            "with_video": .string(event.call.hasVideo ? "true" : "false"),
            "incoming_caller_name": .string(caller.shownName),
            "incoming_caller_id": .string(caller.phoneNumber?.value ?? caller.sipURI ?? caller.id),
            "invite": .string(base64(invite)),
            "title": .string(event.call.displayName ?? caller.shownName),
            "type": "call_invite",
            "iv": .string(iv),
            "tag": .string(tag),
            "version": .string(version),
        ]
    }

    private static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}
