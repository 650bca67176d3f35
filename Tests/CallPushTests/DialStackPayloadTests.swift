import Testing

@testable import CallPush

/// The DialStack guide's `sendCallPush` payloads, for the webhook's example call.
@Suite struct DialStackPayloadTests {
    @Test func theVoIPPayloadIsTheGuidesFourFields() throws {
        let rendered = try Fixtures.render(.dialstack, Fixtures.event(.ring), Fixtures.iOSVoIP)
        #expect(
            rendered
                == Fixtures.compact(
                    """
                    {"call_id":"call_id_123","from_number":"+14155551234","from_name":"John Doe",
                     "to_number":"+14155559876"}
                    """))
    }

    @Test func theFCMDataMapStartsWithTheEventType() throws {
        let rendered = try Fixtures.render(.dialstack, Fixtures.event(.ring), Fixtures.android)
        #expect(
            rendered
                == Fixtures.compact(
                    """
                    {"data":{"type":"call.mobile_push_wakeup","call_id":"call_id_123",
                     "from_number":"+14155551234","from_name":"John Doe","to_number":"+14155559876"}}
                    """))
    }

    @Test func unknownValuesAreEmptyStringsNeverNull() throws {
        let event = try Fixtures.parse(
            #"{"id":"e","type":"call.ring","user_ids":["artem"],"call":{"id":"c"},"caller":{"id":"j"}}"#)
        #expect(
            try Fixtures.render(.dialstack, event, Fixtures.android)
                == #"{"data":{"type":"call.mobile_push_wakeup","call_id":"c","from_number":"","from_name":"","to_number":""}}"#
        )
        #expect(
            try Fixtures.render(.dialstack, event, Fixtures.iOSVoIP)
                == #"{"call_id":"c","from_number":"","from_name":"","to_number":""}"#)
    }

    @Test(arguments: [CallFormat.dialstack, .reactNative, .signalwire])
    func formatsWithoutANotificationPayloadSendStreamsShape(format: CallFormat) throws {
        for type in [CallEventType.notification, .missed, .liveStarted, .sessionStarted] {
            let event = Fixtures.event(type)
            let templates = Fixtures.missedCallTemplates
            for target in [Fixtures.iOSRemote, Fixtures.android] {
                #expect(
                    try Fixtures.render(format, event, target, templates: templates)
                        == Fixtures.render(.stream, event, target, templates: templates))
            }
        }
        #expect(
            try Fixtures.render(
                .stream, Fixtures.event(.missed), Fixtures.iOSRemote, templates: Fixtures.missedCallTemplates)
                == StreamPayloadTests.seedIOS)
    }
}
