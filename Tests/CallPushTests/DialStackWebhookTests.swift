import Foundation
import PushRules
import RegistryCore
import Testing

@testable import CallPush

@Suite struct DialStackWebhookTests {
    /// The guide's example webhook, with one field DialStack might add later.
    static let wakeup = """
        {"id": "evt_01jqr5k8m3n4p6q7r8s9t0u1v3", "type": "call.mobile_push_wakeup",
         "created_at": "2026-04-10T14:30:00Z", "account_id": "acct_01h2xcejqtf2nbrexx3vqjhp41",
         "data": {"call_id": "call_01h2xcejqtf2nbrexx3vqjhp45", "user_id": "user_01h2xcejqtf2nbrexx3vqjhp42",
                  "from_number": "+14155551234", "from_name": "John Smith", "to_number": "+14155559876",
                  "ringing_at": "2026-04-10T14:30:00Z", "queue_id": "q_1"}}
        """

    static func parse(_ text: String, arrivedAt: Date = Fixtures.now) throws(ValidationErrors) -> DialStackWebhook.Event
    {
        try DialStackWebhook.parse(try! JSONParser.parse(text), arrivedAt: arrivedAt)
    }

    @Test func aWakeupBecomesARingForTheUser() throws {
        guard case .wakeup(let event, let dropped) = try Self.parse(Self.wakeup) else {
            Issue.record("not a wakeup")
            return
        }
        #expect(event.id == "evt_01jqr5k8m3n4p6q7r8s9t0u1v3")
        #expect(event.type == .ring)
        #expect(event.userIDs.map(\.value) == ["user_01h2xcejqtf2nbrexx3vqjhp42"])
        #expect(event.call.id == "call_01h2xcejqtf2nbrexx3vqjhp45")
        #expect(event.caller.id == "+14155551234")
        #expect(event.caller.phoneNumber?.value == "+14155551234")
        #expect(event.caller.displayName == "John Smith")
        #expect(event.toNumber?.value == "+14155559876")
        #expect(event.ringingAt == Fixtures.ringingAt)
        #expect(event.ringingAtGiven)
        #expect(event.ttl.seconds == 30)
        #expect(dropped.isEmpty)
    }

    @Test func theRingRendersAsTheGuidesPushes() throws {
        guard case .wakeup(let event, _) = try Self.parse(Self.wakeup) else {
            Issue.record("the guide's webhook is not read as a wake-up")
            return
        }
        let user = event.userIDs[0]
        let voip = PushTarget(userID: user, tokenType: .voip, bundleID: Fixtures.bundleID)
        #expect(
            try Fixtures.render(.dialstack, event, voip)
                == Fixtures.compact(
                    """
                    {"call_id":"call_01h2xcejqtf2nbrexx3vqjhp45","from_number":"+14155551234",
                     "from_name":"John Smith","to_number":"+14155559876"}
                    """))
        let composed = try Fixtures.composer(.dialstack).compose(event, for: voip, now: Fixtures.now)
        #expect(
            composed.plan
                == .apns(
                    try APNsSendOptions(
                        pushType: .voip, priority: 10, expiration: Fixtures.ringingAt.addingTimeInterval(30))))
    }

    @Test func aWithheldNumberAndNameStillRing() throws {
        let body =
            #"{"id":"evt_2","type":"call.mobile_push_wakeup","data":{"call_id":"c","user_id":"u","#
            + #""from_number":"","from_name":""}}"#
        guard case .wakeup(let event, let dropped) = try Self.parse(body) else { return }
        #expect(event.caller.id == DialStackWebhook.anonymousCaller)
        #expect(event.caller.phoneNumber == nil)
        #expect(event.caller.displayName == nil)
        #expect(event.ringingAt == Fixtures.now)
        #expect(!event.ringingAtGiven)
        #expect(dropped.isEmpty)
    }

    /// Only `id`, `type`, `data.user_id` and `data.call_id` may refuse a ring: a number that is not
    /// E.164, a name with a control character, a clock far ahead are dropped and named.
    @Test func aMalformedOptionalFieldIsDroppedAndTheEventStillRings() throws {
        let body =
            #"{"id":"evt_4","type":"call.mobile_push_wakeup","data":{"call_id":"c","user_id":"u","#
            + #""from_number":"anonymous","from_name":"A\u0007","to_number":"1234","#
            + #""ringing_at":"2026-04-10T15:30:00Z"}}"#
        guard case .wakeup(let event, let dropped) = try Self.parse(body, arrivedAt: Fixtures.ringingAt) else {
            Issue.record("not a wakeup")
            return
        }
        #expect(dropped.map(\.field) == ["data.from_number", "data.from_name", "data.to_number", "data.ringing_at"])
        #expect(event.caller.id == "anonymous" && event.caller.phoneNumber == nil && event.caller.displayName == nil)
        #expect(event.toNumber == nil)
        #expect(event.ringingAt == Fixtures.ringingAt && !event.ringingAtGiven)
        // An extension is no phone number, but it is who calls.
        let fromExtension =
            #"{"id":"evt_5","type":"call.mobile_push_wakeup","data":{"call_id":"c","user_id":"u","#
            + #""from_number":"204","from_name":7}}"#
        guard case .wakeup(let fromDesk, let droppedToo) = try Self.parse(fromExtension) else { return }
        #expect(fromDesk.caller.id == "204" && fromDesk.caller.phoneNumber == nil)
        #expect(droppedToo.map(\.field) == ["data.from_number", "data.from_name"])
    }

    @Test func otherEventTypesAreIgnored() throws {
        let ignored = try Self.parse(#"{"id":"evt_3","type":"call.ringing","data":{"whatever":1}}"#)
        #expect(ignored == .ignored(type: "call.ringing"))
    }

    @Test func aBrokenWakeupNamesTheWebhooksFields() {
        let body =
            #"{"type":"call.mobile_push_wakeup","data":{"user_id":"","from_number":"555","#
            + #""to_number":"+1 415","ringing_at":"2026-04-10T15:30:00Z"}}"#
        do {
            _ = try Self.parse(body, arrivedAt: Fixtures.ringingAt)
            Issue.record("a broken wakeup was accepted")
        } catch {
            // Only what a ring needs; the optional fields would have been dropped.
            #expect(error.errors.map(\.field) == ["id", "data.call_id", "data.user_id"])
        }
        #expect(throws: ValidationErrors.self) { try Self.parse(#"{"id":"e","data":{}}"#) }
        #expect(throws: ValidationErrors.self) { try Self.parse(#"{"id":"e","type":"call.mobile_push_wakeup"}"#) }
    }
}
