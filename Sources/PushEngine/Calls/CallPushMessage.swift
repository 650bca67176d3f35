import CallPush

/// A composed call push as the senders take it: the APNs body with its send options, or the FCM
/// v1 `message` (the sender adds the token).
enum CallPushMessage {
    /// Nil when the composer decided not to send (`skipped`, `expired`). `recompose` composes the
    /// push again when it is called: each APNs attempt's body comes from it, so what a body says
    /// of the time left (Flexisip's `pn_ttl`) is what is left when the attempt starts. Should it
    /// compose nothing by then, the attempt sends the first body.
    static func message(for composed: ComposedPush, recompose: @escaping @Sendable () -> ComposedPush? = { nil })
        -> DeviceSend.Message?
    {
        switch (composed.plan, composed.payload) {
        case (.apns(let options), .apns(let body)?):
            let first = body.bytes
            return .apns(
                payload: {
                    guard case .apns(let again)? = recompose()?.payload else { return first }
                    return again.bytes
                }, options: options)
        case (.fcm, .fcm?):
            return composed.fcmMessage.map { .fcm($0) }
        default:
            return nil
        }
    }
}
