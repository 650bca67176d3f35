import RegistryCore

/// What an FCM message carries besides its token and `android` block: the `data` map (string
/// values only, as FCM requires) and, for SignalWire alone, a notification body.
public struct FCMContent: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public let key: String
        public let value: String

        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    public let data: [Entry]
    /// `notification.body`: SignalWire's SDK reads its payload there, as a JSON string.
    public let notificationBody: String?

    public init(data: [Entry], notificationBody: String? = nil) {
        self.data = data
        self.notificationBody = notificationBody
    }

    /// The shape the seed documents print: `{"data": {…}}`, or SignalWire's
    /// `{"notification": {"body": "…"}, "data": {}}`.
    public var json: PayloadJSON {
        var members: [PayloadJSON.Member] = []
        if let notificationBody { members.append(.init("notification", ["body": .string(notificationBody)])) }
        members.append(.init("data", dataJSON))
        return .object(members)
    }

    /// The FCM v1 `message` as the sender takes it, without its `token` (the sender adds it):
    /// `android` as `plan` says, `data`, and SignalWire's `notification`.
    public func message(plan: FCMPushPlan) -> [String: JSONValue] {
        var message: [String: JSONValue] = [
            "android": .object(["priority": .string(plan.priority), "ttl": .string(plan.ttl)]),
            "data": .object(Dictionary(data.map { ($0.key, .string($0.value)) }) { _, last in last }),
        ]
        if let notificationBody { message["notification"] = .object(["body": .string(notificationBody)]) }
        return message
    }

    private var dataJSON: PayloadJSON { .object(data.map { .init($0.key, .string($0.value)) }) }
}
