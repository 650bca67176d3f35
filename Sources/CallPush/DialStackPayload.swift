import RegistryCore

/// The ring payload of DialStack's mobile guide: the four call fields as the VoIP payload, and
/// with `type: call.mobile_push_wakeup` first as the FCM data map. Absent values are "" (the
/// guide's `from_name || ''`), never null.
enum DialStackPayload {
    static func render(_ service: PushService, _ context: RenderContext) -> PushPayload {
        let event = context.event
        let fields: [(key: String, value: String)] = [
            ("call_id", event.call.id),
            ("from_number", event.caller.phoneNumber?.value ?? ""),
            ("from_name", event.caller.displayName ?? ""),
            ("to_number", event.toNumber?.value ?? ""),
        ]
        switch service {
        case .apns:
            return .apns(.object(fields.map { .init($0.key, .string($0.value)) }))
        case .fcm:
            return .fcmData([("type", DialStackWebhook.wakeupEventType)] + fields)
        }
    }
}
