import PushRules
import RegistryCore
import Testing

@testable import PushDelivery

/// A message prepared once writes, for every token, the bytes `FCMMessage.body(token:)` writes,
/// and refuses what the sender refuses.
@Suite struct FCMPreparedMessageTests {
    static let message = FCMMessage([
        "data": .object(["event": .string("live_started"), "token": .string("not the target")]),
        "android": .object(["priority": .string("high")]),
        "webpush": .object(["headers": .object(["Urgency": .string("high")])]),
    ])

    @Test(arguments: ["fcm-token:1", "", "quote\"back\\slash", "line\nbreak\u{1}", "ünïcode 📞"])
    func theBodyIsTheMessagesOwnForEveryToken(token: String) {
        let prepared = FCMPreparedMessage(Self.message)
        #expect(prepared.refusal == nil)
        #expect(prepared.body(token: token) == Self.message.body(token: token))
    }

    @Test func aMessageFCMWouldRefuseIsRefusedForTheSameReason() {
        let targeted = FCMPreparedMessage(FCMMessage(["data": .object([:]), "topic": .string("news")]))
        #expect(targeted.refusal == "fcm.message.topic is set per device by the sender; leave it out")
        let large = FCMPreparedMessage(
            FCMMessage(["data": .object(["blob": .string(String(repeating: "x", count: 5000))])]))
        #expect(large.refusal == "PayloadTooLarge")
    }

    @Test func aMessageJSONCannotHoldHasNoBody() {
        let prepared = FCMPreparedMessage(FCMMessage(["notification": .object(["n": .number(.infinity)])]))
        #expect(prepared.body(token: "t").isEmpty)
    }
}
