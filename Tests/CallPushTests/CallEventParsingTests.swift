import Foundation
import RegistryCore
import Testing

@testable import CallPush

@Suite struct CallEventParsingTests {
    @Test func theIssuesExampleParsesIntoEveryField() throws {
        let event = try Fixtures.parse(Fixtures.fullBody)
        #expect(event.id == "evt_01jqr5k8m3n4p6q7r8s9t0u1v3")
        #expect(event.type == .ring)
        #expect(event.userIDs.map(\.value) == ["artem"])
        #expect(event.call.id == "call_id_123")
        #expect(event.call.type == "default")
        #expect(event.call.cid == "default:call_id_123")
        #expect(event.call.displayName == nil)  // "" means not given
        #expect(event.call.hasVideo == false)
        #expect(event.call.startedAt == Fixtures.ringingAt)
        #expect(event.call.metadata == ["chatId": .string("abc-123")])
        #expect(event.caller.id == "john_doe")
        #expect(event.caller.displayName == "John Doe")
        #expect(event.caller.phoneNumber?.value == "+14155551234")
        #expect(event.caller.avatarURL == "https://example.com/john.png")
        #expect(event.caller.email == "john@example.com")
        #expect(event.caller.sipURI == "sip:john@example.com")
        #expect(event.toNumber?.value == "+14155559876")
        #expect(event.ringingAt == Fixtures.ringingAt)
        #expect(event.ringingAtGiven)
        #expect(event.ttl.seconds == 30)
        #expect(event.expiresAt == Fixtures.ringingAt.addingTimeInterval(30))
    }

    @Test func theSmallestEventTakesItsDefaults() throws {
        let arrival = Fixtures.now
        let event = try Fixtures.parse(
            #"{"id":"e1","type":"call.missed","user_ids":["u"],"call":{"id":"c"},"caller":{"id":"john"}}"#,
            arrivedAt: arrival)
        #expect(event.ttl.seconds == 86_400)  // a missed call's: still news the next morning
        #expect(event.ringingAt == arrival)
        #expect(!event.ringingAtGiven)
        #expect(event.call.type == "default")
        #expect(event.call.hasVideo == false)
        #expect(event.call.metadata == nil)
        #expect(event.caller.displayName == nil)
        #expect(event.toNumber == nil)
        let ring = try Fixtures.parse(
            #"{"id":"e2","type":"call.ring","user_ids":["u"],"call":{"id":"c"},"caller":{"id":"john"}}"#,
            arrivedAt: arrival)
        #expect(ring.ttl.seconds == 30)
    }

    @Test func everyEventTypeIsAccepted() throws {
        for type in CallEventType.allCases {
            #expect(Fixtures.event(type).type == type)
        }
        #expect(CallEventType.allCases.filter(\.isRinging) == [.ring])
    }

    @Test func requiredFieldsAreNamedTogether() {
        #expect(Fixtures.fields("{}") == ["id", "type", "user_ids", "call", "caller"])
        #expect(
            Fixtures.fields(#"{"id":"e","type":"call.ring","user_ids":["u"],"call":{},"caller":{}}"#) == [
                "call.id", "caller.id",
            ])
    }

    @Test func nullCountsAsAbsent() {
        let body =
            #"{"id":"e","type":"call.ring","user_ids":["u"],"call":{"id":"c","metadata":null},"#
            + #""caller":{"id":"j","phone_number":null},"to_number":null,"ttl":null,"ringing_at":null}"#
        #expect(Fixtures.fields(body) == [])
    }

    @Test func aBodyThatIsNotAnObjectIsRefused() {
        let errors = Fixtures.errors("[]")
        #expect(errors.map(\.field) == [""])
        #expect(errors.first?.message == "the request body must be a JSON object, not an array")
    }

    @Test func unknownFieldsAreRefusedWithADidYouMean() {
        let body =
            #"{"id":"e","type":"call.ring","user_ids":["u"],"call":{"id":"c","has_vidoe":true},"#
            + #""caller":{"id":"j","phoneNumber":"+14155551234"},"userIds":["u"],"colour":"red"}"#
        let errors = Fixtures.errors(body)
        #expect(errors.map(\.field) == ["call.has_vidoe", "caller.phoneNumber", "colour", "userIds"])
        #expect(errors[0].message == "unknown field; did you mean \"has_video\"?")
        #expect(errors[1].message == "unknown field; did you mean \"phone_number\"?")
        #expect(errors[2].message.hasPrefix("unknown field; expected one of: id, type, user_ids"))
        #expect(errors[3].message == "unknown field; did you mean \"user_ids\"?")
    }

    @Test func anUnknownTypeSuggestsTheClosest() {
        let errors = Fixtures.errors(
            #"{"id":"e","type":"call.rng","user_ids":["u"],"call":{"id":"c"},"caller":{"id":"j"}}"#)
        #expect(errors.map(\.field) == ["type"])
        #expect(errors[0].message.hasPrefix("did you mean \"call.ring\"? must be one of: call.ring, "))
    }

    /// RegistryCore's cap: a name over 64 bytes is never compared, however close it folds.
    @Test func anUnknownNameOver64BytesGetsNoSuggestion() {
        let long = "user_ids" + String(repeating: "_", count: 60)
        let errors = Fixtures.errors(
            #"{"id":"e","type":"call.ring","user_ids":["u"],"call":{"id":"c"},"caller":{"id":"j"},"\#(long)":1}"#)
        #expect(errors.map(\.field) == [long])
        #expect(errors.first?.message.hasPrefix("unknown field; expected one of: id, type, user_ids") == true)
    }

    @Test func wrongJSONTypesAreNamed() {
        let body =
            #"{"id":1,"type":"call.ring","user_ids":"u","call":{"id":"c","has_video":"yes","metadata":[]},"#
            + #""caller":"john"}"#
        let errors = Fixtures.errors(body)
        #expect(errors.map(\.field) == ["id", "user_ids", "call.has_video", "call.metadata", "caller"])
        #expect(errors[0].message == "must be a string, not a number")
        #expect(errors[1].message == "must be an array, not a string")
        #expect(errors[2].message == "must be a boolean, not a string")
        #expect(errors[3].message == "must be an object, not an array")
        #expect(errors[4].message == "must be an object, not a string")
    }

    @Test(arguments: [
        ("+14155551234", true), ("+442071838750", true), ("+999999999999999", true), ("+12", true),
        ("14155551234", false), ("+1 415 555 1234", false), ("+1-415-555-1234", false), ("+04155551234", false),
        ("+1234567890123456", false), ("+1", false), ("+", false), ("", false), ("+1415555123a", false),
        ("+١٤١٥٥٥٥١٢٣٤", false),
    ])
    func phoneNumbersMustBeE164(number: String, valid: Bool) {
        let body =
            #"{"id":"e","type":"call.ring","user_ids":["u"],"call":{"id":"c"},"#
            + #""caller":{"id":"j","phone_number":"\#(number)"},"to_number":"\#(number)"}"#
        let errors = Fixtures.errors(body)
        if valid {
            #expect(errors.isEmpty)
        } else {
            #expect(errors.map(\.field) == ["caller.phone_number", "to_number"])
            #expect(errors.first?.message.contains("E.164") == true)
        }
    }

    @Test func aRingMayLastAMinuteAtMost() {
        let ring = #"{"id":"e","type":"call.ring","user_ids":["u"],"call":{"id":"c"},"caller":{"id":"j"},"ttl":"#
        #expect(Fixtures.fields(ring + #""60s"}"#) == [])
        #expect(Fixtures.fields(ring + #""1m"}"#) == [])
        let errors = Fixtures.errors(ring + #""61s"}"#)
        #expect(errors.map(\.field) == ["ttl"])
        #expect(errors.first?.message == "must be at most 1m for a ring")
        #expect(Fixtures.fields(ring + #""0s"}"#) == ["ttl"])
        #expect(Fixtures.fields(ring + #""thirty"}"#) == ["ttl"])
        #expect(Fixtures.fields(ring + #"30}"#) == ["ttl"])
    }

    @Test func aNotificationMayLastLongerButNotPastFCMsLimit() {
        let missed = #"{"id":"e","type":"call.missed","user_ids":["u"],"call":{"id":"c"},"caller":{"id":"j"},"ttl":"#
        #expect(Fixtures.fields(missed + #""1d"}"#) == [])
        #expect(Fixtures.fields(missed + #""28d"}"#) == [])
        #expect(Fixtures.fields(missed + #""28d1s"}"#) == ["ttl"])
    }

    @Test func ringingAtMayNotLieFarInTheFuture() {
        let body = { (time: String) in
            #"{"id":"e","type":"call.ring","user_ids":["u"],"call":{"id":"c"},"caller":{"id":"j"},"ringing_at":"\#(time)"}"#
        }
        let arrival = Fixtures.ringingAt
        #expect(Fixtures.fields(body("2026-04-10T14:31:00Z"), arrivedAt: arrival) == [])
        #expect(Fixtures.fields(body("2026-04-10T14:31:01Z"), arrivedAt: arrival) == ["ringing_at"])
        #expect(Fixtures.fields(body("2026-04-10T10:00:00Z"), arrivedAt: arrival) == [])
        #expect(Fixtures.fields(body("yesterday"), arrivedAt: arrival) == ["ringing_at"])
    }

    @Test func userIDsAreCheckedOneByOneAndDeduplicated() throws {
        let body = { (users: String) in
            #"{"id":"e","type":"call.ring","user_ids":\#(users),"call":{"id":"c"},"caller":{"id":"j"}}"#
        }
        #expect(try Fixtures.parse(body(#"["a","b","a"]"#)).userIDs.map(\.value) == ["a", "b"])
        #expect(Fixtures.fields(body("[]")) == ["user_ids"])
        #expect(Fixtures.fields(body(#"["a",2,""]"#)) == ["user_ids[1]", "user_ids[2]"])
        let many = "[" + (0...CallEvent.maxUsers).map { "\"u\($0)\"" }.joined(separator: ",") + "]"
        #expect(Fixtures.fields(body(many)) == ["user_ids"])
    }

    @Test func callerAndCallFieldsAreChecked() {
        let body =
            #"{"id":" ","type":"call.ring","user_ids":["u"],"#
            + #""call":{"id":"c","type":"a:b","started_at":"soon","display_name":"bell\u0007"},"#
            + #""caller":{"id":"j","avatar_url":"ftp://x","email":"john","sip_uri":"john@example.com"}}"#
        #expect(
            Fixtures.fields(body) == [
                "id", "call.type", "call.display_name", "call.started_at", "caller.avatar_url", "caller.email",
                "caller.sip_uri",
            ])
    }

    @Test func metadataIsBounded() {
        let big = String(repeating: "x", count: CallDetails.maxMetadataBytes)
        let body =
            #"{"id":"e","type":"call.ring","user_ids":["u"],"call":{"id":"c","metadata":{"k":"\#(big)"}},"#
            + #""caller":{"id":"j"}}"#
        #expect(Fixtures.fields(body) == ["call.metadata"])
    }

    @Test func theSwiftInitialiserKeepsTheSameRules() throws {
        let call = try CallDetails(id: "c")
        let caller = try Caller(id: "j")
        let users = [try UserID("u")]
        #expect(throws: ValidationErrors.self) {
            try CallEvent(id: "e", type: .ring, userIDs: [], call: call, caller: caller, arrivedAt: Fixtures.now)
        }
        do {
            _ = try CallEvent(
                id: "", type: .ring, userIDs: users, call: call, caller: caller, toNumber: "555",
                ttl: CompactDuration(seconds: 90), arrivedAt: Fixtures.now)
            Issue.record("an invalid event was built")
        } catch {
            #expect(error.errors.map(\.field) == ["id", "to_number", "ttl"])
        }
        do {
            _ = try Caller(id: "j", phoneNumber: "555", email: "x")
            Issue.record("an invalid caller was built")
        } catch {
            #expect(error.errors.map(\.field) == ["caller.phone_number", "caller.email"])
        }
    }
}
