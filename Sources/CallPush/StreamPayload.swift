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
            return .fcm(FCMContent(data: fields))
        }
    }

    private static func fields(_ context: RenderContext, title: String, body: String) -> [FCMContent.Entry] {
        let event = context.event
        return [
            .init("sender", "stream.video"),
            .init("type", event.type.rawValue),
            .init("version", "v2"),
            .init("call_cid", event.call.cid),
            .init("call_display_name", event.call.displayName ?? ""),
            .init("created_by_id", event.caller.id),
            .init("created_by_display_name", event.caller.displayName ?? ""),
            .init("receiver_id", context.target.userID.value),
            .init("title", title),
            .init("body", body),
        ]
    }
}
