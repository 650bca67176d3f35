import Foundation
import RegistryCore
import Testing

@testable import CallPush

/// The React Native VoIP module's `IncomingCallEvent`, on both transports.
@Suite struct ReactNativePayloadTests {
    static let eventUUID = NameBasedUUID.eventUUID("evt_01jqr5k8m3n4p6q7r8s9t0u1v3")

    static let incomingCall = Fixtures.compact(
        """
        {"eventId":"\(eventUUID)","serverCallId":"call_id_123","hasVideo":false,
         "startedAt":"2026-04-10T14:30:00.000Z",
         "caller":{"id":"john_doe","displayName":"John Doe","avatarUrl":"https://example.com/john.png",
                   "phoneNumber":"+14155551234","email":"john@example.com"},
         "metadata":{"chatId":"abc-123"}}
        """)

    @Test func theVoIPPayloadNestsTheEventUnderIncomingCall() throws {
        let rendered = try Fixtures.render(.reactNative, Fixtures.event(.ring), Fixtures.iOSVoIP)
        #expect(rendered == #"{"incomingCall":\#(Self.incomingCall)}"#)
    }

    @Test func theFCMDataMapCarriesTheEventAsAJSONString() throws {
        let rendered = try Fixtures.render(.reactNative, Fixtures.event(.ring), Fixtures.android)
        let escaped = Self.incomingCall.replacingOccurrences(of: "\"", with: "\\\"")
        #expect(rendered == #"{"data":{"messageType":"incomingCall","incomingCall":"\#(escaped)"}}"#)
        // The string is itself the event, as the module parses it.
        guard
            case .fcm(.object(let members)) = try Fixtures.composer(.reactNative).compose(
                Fixtures.event(.ring), for: Fixtures.android, now: Fixtures.now
            ).payload, members.map(\.key) == ["data"], case .object(let data) = members[0].value
        else {
            Issue.record("no FCM data map")
            return
        }
        #expect(data.map(\.key) == ["messageType", "incomingCall"])
        #expect(data[1].value == .string(Self.incomingCall))
    }

    @Test func absentOptionalsAreLeftOutAndHasVideoDefaultsToFalse() throws {
        let event = try Fixtures.parse(
            #"{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","type":"call.ring","user_ids":["artem"],"#
                + #""call":{"id":"c"},"caller":{"id":"j"}}"#)
        let rendered = try Fixtures.render(.reactNative, event, Fixtures.iOSVoIP)
        #expect(
            rendered
                == #"{"incomingCall":{"eventId":"6f9619ff-8b86-d011-b42d-00c04fc964ff","serverCallId":"c","hasVideo":false,"caller":{"id":"j"}}}"#
        )
    }

    @Test func aVideoCallSaysSo() throws {
        let event = try Fixtures.parse(Fixtures.fullBody.replacingOccurrences(of: "false", with: "true"))
        #expect(try Fixtures.render(.reactNative, event, Fixtures.iOSVoIP).contains(#""hasVideo":true"#))
    }

    @Test func startedAtHasMillisecondsLikeTheModulesExample() throws {
        let event = try Fixtures.parse(
            Fixtures.fullBody.replacingOccurrences(
                of: #""started_at": "2026-04-10T14:30:00Z""#, with: #""started_at": "2026-01-15T21:42:11.123456+02:00""#
            ))
        #expect(
            try Fixtures.render(.reactNative, event, Fixtures.iOSVoIP).contains(
                #""startedAt":"2026-01-15T19:42:11.123Z""#))
    }
}
