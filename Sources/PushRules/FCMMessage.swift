import RegistryCore

/// An FCM v1 `message` without its target, which the sender adds per device: the one model of
/// what goes to FCM, whether `POST /v1/push` gave it or a call push was rendered into it, and the
/// one writer of its bytes (`PushRequest.compactJSON`), so the size checked against FCM's limit
/// and the body sent come from the same function.
public struct FCMMessage: Sendable, Equatable {
    /// The message's members (`data`, `android`, `notification`, …), never `token`, `topic` or
    /// `condition` (`FCMMessageRules`).
    public let fields: [String: JSONValue]

    public init(_ fields: [String: JSONValue]) {
        self.fields = fields
    }

    /// The message sent at high priority for `ttl`, as every call push is: `android` becomes
    /// `{"priority": "high", "ttl": …}`, what gets a data message through Doze (the app turns each
    /// one into something the user sees, as FCM asks of high-priority messages).
    public func highPriority(ttl: Duration) -> FCMMessage {
        var fields = fields
        fields["android"] = .object(["priority": .string("high"), "ttl": .string(FCMTTL.format(ttl))])
        return FCMMessage(fields)
    }

    /// `android.ttl`, when the message sets a valid one.
    public var ttl: Duration? {
        fields["android"]?.objectValue?["ttl"]?.stringValue.flatMap(FCMTTL.parse)
    }

    /// The message with `android.ttl` set to `ttl`: what a retry carries of its window.
    public func withTTL(_ ttl: Duration) -> FCMMessage {
        guard var android = fields["android"]?.objectValue else { return self }
        android["ttl"] = .string(FCMTTL.format(ttl))
        var fields = fields
        fields["android"] = .object(android)
        return FCMMessage(fields)
    }

    /// What FCM's 4,096-byte limit is checked on: the message as sent, its `android` block
    /// included and its token not. The one measure for `POST /v1/push`, the call pushes' composer
    /// and the sender alike, so a push that passes one passes all.
    public var byteCount: Int { PushRequest.compactJSON(.object(fields)).count }

    /// The `messages:send` request body for `token`: `{"message":{…,"token":"…"}}`. Empty for a
    /// message JSON cannot hold (a non-finite number).
    public func body(token: String) -> [UInt8] {
        var message = fields
        message["token"] = .string(token)
        return PushRequest.compactJSON(.object(["message": .object(message)]))
    }
}
