import PushRules
import RegistryCore
import Testing

@testable import CallPush

/// Properties every format keeps for every event type and token: the push kind follows the
/// rule, the bytes are JSON, nothing is null, FCM data values are strings, and an alert push has
/// something for iOS to show.
@Suite struct EveryFormatTests {
    static let targets: [PushTarget] = [
        PushTarget(
            userID: Fixtures.receiver, tokenType: .voip, bundleID: Fixtures.bundleID,
            deviceID: try! DeviceID("<urn:uuid:0d8a5b6c-1f2e-4a3b-9c8d-7e6f5a4b3c2d>"),
            payloadKey: SignalWirePayloadTests.key),
        Fixtures.iOSRemote,
        PushTarget(userID: Fixtures.receiver, tokenType: .fcm, payloadKey: SignalWirePayloadTests.key),
        Fixtures.android,
    ]

    @Test(arguments: CallFormat.allCases, CallEventType.allCases)
    func everyPushIsWellFormed(format: CallFormat, type: CallEventType) throws {
        let event = Fixtures.event(type)
        for target in Self.targets {
            let composed = try Fixtures.composer(format).compose(event, for: target, now: Fixtures.now)
            let expected = DeliveryRule.decide(
                event, tokenType: target.tokenType, bundleID: target.bundleID, now: Fixtures.now)
            #expect(composed.plan == expected)
            #expect((composed.payload == nil) == (expected.kind == nil))
            guard let payload = composed.payload else { continue }
            let context = "\(format.rawValue) \(type.rawValue) to \(target.tokenType.rawValue)"
            let json = try JSONParser.parse(String(decoding: payload.bytes, as: UTF8.self))
            #expect(!Self.containsNull(json), "\(context) has a null")
            switch payload {
            case .fcm:
                #expect(target.tokenType == .fcm)
                guard case .object(let top) = json, case .object(let data)? = top["data"] else {
                    Issue.record("\(context): no data map")
                    continue
                }
                #expect(data.values.allSatisfy { if case .string = $0 { true } else { false } }, "\(context)")
                #expect(composed.fcmMessage?.fields["data"] == .object(data), "\(context)")
            case .apns:
                #expect(target.tokenType != .fcm)
                if expected.kind == .alert {
                    guard case .object(let top) = json, case .object(let aps)? = top["aps"], aps["alert"] != nil else {
                        Issue.record("\(context): an alert push without aps.alert")
                        continue
                    }
                }
            }
        }
    }

    @Test func aNotificationPastItsTTLIsNotSentEither() throws {
        let late = Fixtures.ringingAt.addingTimeInterval(31)
        let composed = try Fixtures.composer(.stream).compose(Fixtures.event(.missed), for: Fixtures.android, now: late)
        guard case .expired = composed.plan else {
            Issue.record("a missed-call notification 31 s after a 30 s ttl: \(composed.plan)")
            return
        }
    }

    @Test func anAPNsTokenWithoutABundleIDIsSkippedNotCrashed() {
        let decision = DeliveryRule.decide(Fixtures.event(.ring), tokenType: .voip, bundleID: nil, now: Fixtures.now)
        #expect(decision == .skipped(reason: "the APNs provider has no topic (bundle id)"))
    }

    @Test func aPayloadTooLargeForItsServiceIsSkippedWithItsSize() throws {
        let long = String(repeating: "é", count: 255)
        let event = try Fixtures.parse(
            Fixtures.fullBody.replacingOccurrences(of: "\"John Doe\"", with: "\"\(long)\"")
                .replacingOccurrences(
                    of: "https://example.com/john.png",
                    with: "https://example.com/" + String(repeating: "a", count: 2000)
                )
                .replacingOccurrences(of: "abc-123", with: String(repeating: "m", count: 1900)))
        let composed = try Fixtures.composer(.reactNative).compose(event, for: Fixtures.android, now: Fixtures.now)
        guard case .skipped(let reason) = composed.plan else {
            Issue.record("an oversized payload got \(composed.plan)")
            return
        }
        #expect(composed.payload == nil)
        #expect(reason.hasPrefix("the react-native payload is "))
        #expect(reason.contains("a data push takes at most 4096"))
        // The same event fits in the smaller Stream shape.
        #expect(try Fixtures.composer(.stream).compose(event, for: Fixtures.android, now: Fixtures.now).payload != nil)
    }

    /// The limit is checked on the FCM message as sent, `android` block included: a data map that
    /// fits 4,096 bytes alone but not with it is skipped with its size, not refused by the sender.
    @Test func anFCMPushIsMeasuredWithItsAndroidBlock() throws {
        var found = false
        search: for metadata in [1900, 950, 7] {
            for picture in 1...2000 {
                let body = Fixtures.fullBody.replacingOccurrences(
                    of: "abc-123", with: String(repeating: "m", count: metadata)
                ).replacingOccurrences(
                    of: "https://example.com/john.png",
                    with: "https://example.com/" + String(repeating: "a", count: picture))
                guard let event = try? Fixtures.parse(body) else { continue }
                let plan = DeliveryRule.decide(event, tokenType: .fcm, bundleID: nil, now: Fixtures.now)
                let rendered = ComposedPush(
                    plan: plan,
                    payload: ReactNativePayload.render(
                        .fcm, RenderContext(event: event, target: Fixtures.android, now: Fixtures.now, templates: .none)
                    ))
                guard let payload = rendered.payload, let sent = rendered.fcmMessage?.byteCount,
                    payload.bytes.count <= 4096, sent > 4096
                else { continue }
                let composed = try Fixtures.composer(.reactNative).compose(
                    event, for: Fixtures.android, now: Fixtures.now)
                #expect(composed.plan == .skipped(reason: Self.tooLarge(sent)))
                found = true
                break search
            }
        }
        #expect(found, "no event put the data map within 45 bytes of the limit")
    }

    private static func tooLarge(_ size: Int) -> String {
        "the react-native payload is \(size) bytes; a data push takes at most 4096 (shorten the caller's fields or "
            + "the call's metadata)"
    }

    private static func containsNull(_ value: JSONValue) -> Bool {
        switch value {
        case .null: true
        case .array(let elements): elements.contains(where: containsNull)
        case .object(let members): members.values.contains(where: containsNull)
        case .bool, .number, .string: false
        }
    }
}
