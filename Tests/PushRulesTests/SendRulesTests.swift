import Foundation
import RegistryCore
import Testing

@testable import PushRules

@Suite struct SendRulesTests {
    static let apnsID = UUID(uuidString: "123E4567-E89B-12D3-A456-4266554400A0")!

    @Test func voipHeadersUseTheVoipTopicAndCarryEveryOption() throws {
        let options = try APNsSendOptions(
            pushType: .voip, priority: 10, expiration: Date(timeIntervalSince1970: 1_800_000_030.9),
            collapseID: "call-1")
        let headers = Self.headers(options, bundleID: "com.example.app")
        #expect(
            headers.map(\.name) == [
                "apns-push-type", "apns-topic", "apns-id", "apns-priority", "apns-expiration", "apns-collapse-id",
            ])
        #expect(
            headers.map(\.value) == [
                "voip", "com.example.app.voip", "123e4567-e89b-12d3-a456-4266554400a0", "10", "1800000030", "call-1",
            ])
    }

    /// The headers as the sender gets them, with the topic it makes for the push type.
    static func headers(_ options: APNsSendOptions, bundleID: String) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        options.headers(topic: options.pushType.topic(bundleID: bundleID), apnsID: apnsID) { headers.append(($0, $1)) }
        return headers
    }

    @Test func apnsIDIsTheUUIDInLowercase() {
        for _ in 0..<20 {
            let uuid = UUID()
            #expect(APNsSendOptions.text(of: uuid) == uuid.uuidString.lowercased())
        }
    }

    @Test func optionalHeadersAreLeftOutWhenNotGiven() throws {
        let headers = Self.headers(try APNsSendOptions(pushType: .alert), bundleID: "com.example.app")
        #expect(headers.map(\.name) == ["apns-push-type", "apns-topic", "apns-id"])
        #expect(headers[1].value == "com.example.app")
    }

    @Test(arguments: [
        (APNsPushType.alert, "b"), (.background, "b"), (.voip, "b.voip"), (.complication, "b.complication"),
        (.fileprovider, "b.pushkit.fileprovider"), (.location, "b.location-query"),
        (.liveactivity, "b.push-type.liveactivity"), (.pushtotalk, "b.voip-ptt"),
    ])
    func topics(type: APNsPushType, topic: String) {
        #expect(type.topic(bundleID: "b") == topic)
    }

    @Test func pushTypesSuitTheirTokens() {
        #expect(APNsPushType.voip.suits(.voip))
        #expect(!APNsPushType.alert.suits(.voip))
        #expect(APNsPushType.alert.suits(.apns))
        #expect(!APNsPushType.voip.suits(.apns))
        #expect(!APNsPushType.alert.suits(.fcm))
    }

    @Test func badOptionsAreRefusedNamingTheField() {
        #expect(throws: ValidationErrors([ValidationError(field: "apns.priority", message: "must be 10, 5 or 1")])) {
            try APNsSendOptions(pushType: .alert, priority: 7)
        }
        #expect(throws: ValidationErrors.self) { try APNsSendOptions(pushType: .background, priority: 10) }
        #expect(throws: ValidationErrors.self) {
            try APNsSendOptions(pushType: .alert, collapseID: String(repeating: "x", count: 65))
        }
        #expect(throws: ValidationErrors.self) { try APNsSendOptions(pushType: .alert, collapseID: "") }
        #expect(throws: ValidationError.self) { try APNsPushType("mdm") }
        #expect(throws: Never.self) { try APNsSendOptions(pushType: .background, priority: 5) }
    }

    @Test(arguments: [
        (TokenType.apns, 4096), (.voip, 5120), (.fcm, 4096),
    ])
    func payloadLimits(type: TokenType, limit: Int) {
        #expect(PayloadLimit.maximumBytes(for: type) == limit)
        #expect(PayloadLimit.fits(limit, type))
        #expect(!PayloadLimit.fits(limit + 1, type))
    }

    @Test func fcmDataValuesMustBeStringsAndKeysNotReserved() throws {
        let message = try JSONParser.parse(
            #"{"data":{"call_id":"c1","ring":30,"from":"x","google.sent":"y","ok":"z"},"android":{"priority":"high"}}"#)
        #expect(
            FCMMessageRules.problems(in: message).map(\.field) == [
                "fcm.message.data.from", "fcm.message.data.google.sent", "fcm.message.data.ring",
            ])
        #expect(FCMMessageRules.problems(in: message)[2].message.hasPrefix("must be a string, not a number"))
    }

    @Test func anFCMMessageMayNotChooseItsTarget() throws {
        let message = try JSONParser.parse(#"{"token":"t","topic":"news","data":{"a":"b"}}"#)
        #expect(FCMMessageRules.problems(in: message).map(\.field) == ["fcm.message.token", "fcm.message.topic"])
    }

    @Test func aWellFormedFCMMessagePasses() throws {
        let message = try JSONParser.parse(
            #"{"data":{"type":"call.mobile_push_wakeup","call_id":"c1"},"android":{"priority":"high","ttl":"30s"}}"#)
        #expect(FCMMessageRules.problems(in: message).isEmpty)
        #expect(FCMMessageRules.problems(in: .array([])).map(\.field) == ["fcm.message"])
        #expect(
            FCMMessageRules.problems(in: try JSONParser.parse(#"{"data":[]}"#)).map(\.field) == ["fcm.message.data"])
    }
}
