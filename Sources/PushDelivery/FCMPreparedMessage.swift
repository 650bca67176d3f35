import Encodings
import Foundation
import PushRules

/// An FCM message's checks and its `messages:send` body around the device token, worked out once
/// for every device it goes to: a job sends one message to half a million tokens, and checking
/// it, measuring it and writing its JSON again for each (the members copied to add the token,
/// every object's keys sorted) cost more than the rest of the push's work here.
struct FCMPreparedMessage: Sendable {
    let message: FCMMessage
    /// Why FCM would refuse the message (`FCMMessageRules`, the 4,096-byte limit); nil when none.
    let refusal: String?
    /// The body's bytes before and after the token's JSON string; empty for a message JSON
    /// cannot hold.
    private let beforeToken: [UInt8]
    private let afterToken: [UInt8]

    init(_ message: FCMMessage) {
        self.message = message
        if let problem = FCMMessageRules.problems(in: .object(message.fields)).first {
            refusal = "\(problem.field) \(problem.message)"
        } else if !PayloadLimit.fits(message.byteCount, .fcm) {
            refusal = "PayloadTooLarge"
        } else {
            refusal = nil
        }
        // The body rendered once with a token no message holds, then cut at that token's string:
        // keys are written sorted, so the real token's string goes in the same place.
        let marker = "\u{1}token \(UUID().uuidString)"
        var quoted: [UInt8] = []
        JSONText.appendString(marker, to: &quoted)
        let body = message.body(token: marker)
        if let start = body.firstRange(of: quoted) {
            beforeToken = Array(body[..<start.lowerBound])
            afterToken = Array(body[start.upperBound...])
        } else {
            (beforeToken, afterToken) = ([], [])
        }
    }

    /// `message.body(token:)`, the same bytes.
    func body(token: String) -> [UInt8] {
        guard !beforeToken.isEmpty else { return [] }
        var body: [UInt8] = []
        body.reserveCapacity(beforeToken.count + token.utf8.count + 2 + afterToken.count)
        body += beforeToken
        JSONText.appendString(token, to: &body)
        body += afterToken
        return body
    }
}
