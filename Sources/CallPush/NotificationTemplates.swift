import RegistryCore

/// A provider's title/body templates per event type, as Stream sets them per call type:
/// `{"call.missed": {"title": "Missed call", "body": "You missed a call from {{ user.display_name }}"}}`.
/// A non-ringing event without a title or body template gets a built-in one (`builtIn`): its
/// push is an alert iOS shows as it is, and an empty banner says nothing. A ring's stay empty,
/// as Stream sends them: the app's call screen shows the caller.
public struct NotificationTemplates: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public let title: PushTemplate?
        public let body: PushTemplate?

        public init(title: PushTemplate? = nil, body: PushTemplate? = nil) {
            self.title = title
            self.body = body
        }
    }

    public let entries: [CallEventType: Entry]

    public static let none = NotificationTemplates(entries: [:])

    public init(entries: [CallEventType: Entry]) {
        self.entries = entries
    }

    /// Parses the `templates` object of a provider body; errors name `<field>.<event type>.title`.
    /// Event types and the `title`/`body` keys are checked like any field, "did you mean" included.
    public static func parse(_ value: JSONValue, field: String = "templates") throws(ValidationErrors)
        -> NotificationTemplates
    {
        let types = CallEventType.allCases.map(\.rawValue)
        var reader = JSONObjectReader(value, known: types, path: field)
        var entries: [CallEventType: Entry] = [:]
        for type in CallEventType.allCases {
            let entry = reader.object(type.rawValue, known: ["title", "body"]) { nested -> Entry? in
                let title = nested.value("title", PushTemplate.init)
                let body = nested.value("body", PushTemplate.init)
                return Entry(title: title, body: body)
            }
            if let entry { entries[type] = entry }
        }
        try reader.finish()
        return NotificationTemplates(entries: entries)
    }

    /// The templates as a JSON object in event-type order, for storing and showing back.
    public var json: PayloadJSON {
        .object(
            CallEventType.allCases.compactMap { type in
                guard let entry = entries[type] else { return nil }
                var members: [PayloadJSON.Member] = []
                if let title = entry.title { members.append(.init("title", .string(title.source))) }
                if let body = entry.body { members.append(.init("body", .string(body.source))) }
                return .init(type.rawValue, .object(members))
            })
    }

    /// The text of a non-ringing event whose provider has no template for it; any template the
    /// provider sets for the type's title or body replaces that part.
    static let builtIn: [CallEventType: Entry] = [
        .notification: builtInEntry("Incoming call", "{{ user.display_name }} is calling"),
        .missed: builtInEntry("Missed call", "Missed call from {{ user.display_name }}"),
        .liveStarted: builtInEntry("Live now", "{{ user.display_name }} is live"),
        .sessionStarted: builtInEntry("Call started", "{{ user.display_name }} started a call"),
    ]

    private static func builtInEntry(_ title: String, _ body: String) -> Entry {
        // Valid by construction: known placeholders, no control characters.
        Entry(title: try! PushTemplate(title, field: "title"), body: try! PushTemplate(body, field: "body"))
    }

    /// The rendered title and body for `event` pushed to `receiver`: the provider's templates,
    /// else the built-in text, else empty (a ring).
    func render(_ event: CallEvent, receiver: UserID) -> (title: String, body: String) {
        let own = entries[event.type]
        let builtIn = Self.builtIn[event.type]
        let entry = Entry(title: own?.title ?? builtIn?.title, body: own?.body ?? builtIn?.body)
        let value = { (placeholder: PushTemplate.Placeholder) -> String in
            switch placeholder {
            case .userID: event.caller.id
            case .userDisplayName: event.caller.shownName
            case .callID: event.call.id
            case .callDisplayName: event.call.displayName ?? ""
            case .callType: event.call.type
            case .receiverID: receiver.value
            }
        }
        return (entry.title?.render(value) ?? "", entry.body?.render(value) ?? "")
    }
}
