import Testing

@testable import CallPush

/// The Stream seed's payloads, copied from the document and compared byte for byte.
@Suite struct StreamPayloadTests {
    static let seedIOS = Fixtures.compact(
        """
        {
          "aps": {
            "alert": {
              "title": "Missed call",
              "body": "You missed a call from John Doe"
            },
            "category": "stream.video",
            "mutable-content": 1,
            "sound": "default",
            "thread-id": "video-default:call_id_123"
          },
          "stream": {
            "sender": "stream.video",
            "type": "call.missed",
            "version": "v2",
            "call_cid": "default:call_id_123",
            "call_display_name": "",
            "created_by_id": "john_doe",
            "created_by_display_name": "John Doe",
            "receiver_id": "artem",
            "title": "Missed call",
            "body": "You missed a call from John Doe"
          }
        }
        """)

    static let seedAndroid = Fixtures.compact(
        """
        {
          "data": {
            "sender": "stream.video",
            "type": "call.missed",
            "version": "v2",
            "call_cid": "default:call_id_123",
            "call_display_name": "",
            "created_by_id": "john_doe",
            "created_by_display_name": "John Doe",
            "receiver_id": "artem",
            "title": "Missed call",
            "body": "You missed a call from John Doe"
          }
        }
        """)

    @Test func theSeedsIOSPayloadExactly() throws {
        let rendered = try Fixtures.render(
            .stream, Fixtures.event(.missed), Fixtures.iOSRemote, templates: Fixtures.missedCallTemplates)
        #expect(rendered == Self.seedIOS)
    }

    @Test func theSeedsAndroidPayloadExactly() throws {
        let rendered = try Fixtures.render(
            .stream, Fixtures.event(.missed), Fixtures.android, templates: Fixtures.missedCallTemplates)
        #expect(rendered == Self.seedAndroid)
    }

    /// Every non-ringing type, both platforms: the seed's shape with that type and, without a
    /// template, the built-in title and body (an empty banner says nothing).
    @Test(arguments: [
        (CallEventType.notification, "Incoming call", "John Doe is calling"),
        (.missed, "Missed call", "Missed call from John Doe"),
        (.liveStarted, "Live now", "John Doe is live"),
        (.sessionStarted, "Call started", "John Doe started a call"),
    ])
    func everyNotificationTypeWithoutATemplate(type: CallEventType, title: String, body: String) throws {
        let event = Fixtures.event(type)
        let untemplated = { (seed: String) in
            seed.replacingOccurrences(of: "call.missed", with: type.rawValue)
                .replacingOccurrences(of: "You missed a call from John Doe", with: body)
                .replacingOccurrences(of: "Missed call", with: title)
        }
        #expect(try Fixtures.render(.stream, event, Fixtures.iOSRemote) == untemplated(Self.seedIOS))
        #expect(try Fixtures.render(.stream, event, Fixtures.android) == untemplated(Self.seedAndroid))
    }

    @Test func aRingIsTheStreamDictionaryAloneOnVoIPAndTheDataMapOnAndroid() throws {
        let event = Fixtures.event(.ring)
        let fields = Fixtures.compact(
            """
            {"sender":"stream.video","type":"call.ring","version":"v2","call_cid":"default:call_id_123",
             "call_display_name":"","created_by_id":"john_doe","created_by_display_name":"John Doe",
             "receiver_id":"artem","title":"","body":""}
            """)
        #expect(try Fixtures.render(.stream, event, Fixtures.iOSVoIP) == #"{"stream":\#(fields)}"#)
        #expect(try Fixtures.render(.stream, event, Fixtures.android) == #"{"data":\#(fields)}"#)
    }

    @Test func templatesFillEveryPlaceholderForTheirOwnType() throws {
        let templates = NotificationTemplates(entries: [
            .ring: .init(
                title: try PushTemplate("{{ user.display_name }} ({{user.id}}) is calling", field: "t"),
                body: try PushTemplate(
                    "{{ call.type }}/{{ call.id }} \"{{ call.display_name }}\" for {{ receiver.id }}", field: "b"))
        ])
        let rendered = try Fixtures.render(.stream, Fixtures.event(.ring), Fixtures.android, templates: templates)
        #expect(rendered.contains(#""title":"John Doe (john_doe) is calling""#))
        #expect(rendered.contains(#""body":"default/call_id_123 \"\" for artem""#))
        // The ring's templates do not leak into another type, which gets its built-in text.
        let missed = try Fixtures.render(.stream, Fixtures.event(.missed), Fixtures.android, templates: templates)
        #expect(missed.contains(#""title":"Missed call","body":"Missed call from John Doe""#))
    }

    /// A template replaces the built-in part it names; the other part stays built in.
    @Test func aTemplateOverridesTheBuiltInTextPartByPart() throws {
        let templates = NotificationTemplates(entries: [
            .missed: .init(title: try PushTemplate("Verpasster Anruf", field: "t"))
        ])
        let rendered = try Fixtures.render(.stream, Fixtures.event(.missed), Fixtures.android, templates: templates)
        #expect(rendered.contains(#""title":"Verpasster Anruf","body":"Missed call from John Doe""#))
    }

    @Test func theReceiverIsTheDevicesUser() throws {
        let bob = PushTarget(userID: try .init("bob"), tokenType: .fcm)
        let rendered = try Fixtures.render(.stream, Fixtures.event(.missed), bob)
        #expect(rendered.contains(#""receiver_id":"bob""#))
    }
}
