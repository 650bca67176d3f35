/// Stream Video's v2 payload: the same ten fields everywhere — under `stream` next to an `aps`
/// alert for iOS notifications, alone under `stream` for a VoIP ring (PushKit needs no `aps`),
/// and as the FCM `data` map on Android.
enum StreamPayload {
    static func render(_ kind: PushKind, _ context: RenderContext) -> PushPayload {
        let (title, body) = context.templates.render(context.event, receiver: context.target.userID)
        let fields = fields(context, title: title, body: body)
        let stream = PayloadJSON.object(fields.map { .init($0.key, .string($0.value)) })
        switch kind {
        case .voip:
            return .apns(["stream": stream])
        case .alert:
            return .apns([
                "aps": [
                    "alert": ["title": .string(title), "body": .string(body)],
                    "category": "stream.video",
                    "mutable-content": 1,
                    "sound": "default",
                    "thread-id": .string("video-\(context.event.call.cid)"),
                ],
                "stream": stream,
            ])
        case .data:
            return .fcmData(fields)
        }
    }

    private static func fields(_ context: RenderContext, title: String, body: String) -> [(key: String, value: String)]
    {
        let event = context.event
        return [
            ("sender", "stream.video"),
            ("type", event.type.rawValue),
            ("version", "v2"),
            ("call_cid", event.call.cid),
            ("call_display_name", event.call.displayName ?? ""),
            ("created_by_id", event.caller.id),
            ("created_by_display_name", event.caller.displayName ?? ""),
            ("receiver_id", context.target.userID.value),
            ("title", title),
            ("body", body),
        ]
    }
}
