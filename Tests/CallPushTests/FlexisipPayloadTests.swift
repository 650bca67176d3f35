import Encodings
import Foundation
import RegistryCore
import Testing

@testable import CallPush

/// Flexisip's three bodies, with every key as its wiki page prints it.
@Suite struct FlexisipPayloadTests {
    static let instance = "urn:uuid:0d8a5b6c-1f2e-4a3b-9c8d-7e6f5a4b3c2d"

    static func target(_ type: TokenType, deviceID: String = instance) -> PushTarget {
        PushTarget(
            userID: Fixtures.receiver, tokenType: type, bundleID: type == .fcm ? nil : Fixtures.bundleID,
            deviceID: try! DeviceID(deviceID))
    }

    @Test func thePushKitBodyForARing() throws {
        let rendered = try Fixtures.render(.flexisip, Fixtures.event(.ring), Self.target(.voip))
        #expect(
            rendered
                == Fixtures.compact(
                    """
                    {"aps":{"sound":"","loc-key":"IC_MSG","loc-args":["John Doe"],"call-id":"call_id_123",
                            "uuid":"\(Self.instance)","send-time":"2026-04-10 14:30:02"},
                     "from-uri":"sip:john@example.com","display-name":"John Doe","pn_ttl":28,"customPayload":{}}
                    """))
    }

    @Test(arguments: [CallEventType.notification, .missed, .liveStarted, .sessionStarted])
    func theRemoteBodyForEveryOtherEvent(type: CallEventType) throws {
        let rendered = try Fixtures.render(.flexisip, Fixtures.event(type), Self.target(.apns))
        #expect(
            rendered
                == Fixtures.compact(
                    """
                    {"aps":{"alert":{"loc-key":"IC_MSG","loc-args":["John Doe"]},"sound":"","mutable-content":1,
                            "badge":1},
                     "from-uri":"sip:john@example.com","display-name":"John Doe","call-id":"call_id_123",
                     "pn_ttl":28,"uuid":"\(Self.instance)","send-time":"2026-04-10 14:30:02"}
                    """))
    }

    /// Flexisip's Android pushes are always the same silent data message, `form-uri` spelling included.
    @Test(arguments: CallEventType.allCases)
    func theFCMDataMapForEveryEvent(type: CallEventType) throws {
        let rendered = try Fixtures.render(.flexisip, Fixtures.event(type), Self.target(.fcm))
        #expect(
            rendered
                == Fixtures.compact(
                    """
                    {"data":{"uuid":"\(Self.instance)","form-uri":"sip:john@example.com","display-name":"John Doe",
                             "call-id":"call_id_123","sip-from":"John Doe","loc-key":"","loc-args":"John Doe",
                             "send-time":"2026-04-10 14:30:02"}}
                    """))
    }

    @Test func theUUIDLosesItsAngleBracketsAndFromFallsBackToTheSIPURI() throws {
        let event = try Fixtures.parse(
            #"{"id":"e","type":"call.ring","user_ids":["artem"],"call":{"id":"c"},"#
                + #""caller":{"id":"j","sip_uri":"sip:j@example.com"},"ttl":"45s","ringing_at":"2026-04-10T14:30:00Z"}"#
        )
        let rendered = try Fixtures.render(.flexisip, event, Self.target(.fcm, deviceID: "<\(Self.instance)>"))
        #expect(rendered.contains(#""uuid":"\#(Self.instance)""#))
        #expect(rendered.contains(#""display-name":"","call-id":"c","sip-from":"sip:j@example.com""#))
        #expect(rendered.contains(#""loc-args":"sip:j@example.com""#))
        let voip = try Fixtures.render(.flexisip, event, Self.target(.voip))
        #expect(voip.contains(#""pn_ttl":43"#))
    }

    @Test func sendTimeIsUTCInFlexisipsFormat() {
        #expect(FlexisipPayload.sendTime(RFC3339.parse("2026-01-02T03:04:05.987+02:00")!) == "2026-01-02 01:04:05")
    }
}
