import Foundation
import Testing

@testable import CallPush

@Suite struct CanonicalFormTests {
    @Test func theCanonicalFormIsSortedCompactAndComplete() throws {
        let event = try Fixtures.parse(Fixtures.fullBody)
        let expected = Fixtures.compact(
            """
            {"call":{"has_video":false,"id":"call_id_123","metadata":{"chatId":"abc-123"},
                     "started_at":"2026-04-10T14:30:00.000000Z","type":"default"},
             "caller":{"avatar_url":"https://example.com/john.png","display_name":"John Doe",
                       "email":"john@example.com","id":"john_doe","phone_number":"+14155551234",
                       "sip_uri":"sip:john@example.com"},
             "id":"evt_01jqr5k8m3n4p6q7r8s9t0u1v3","ringing_at":"2026-04-10T14:30:00.000000Z",
             "to_number":"+14155559876","ttl":"30s","type":"call.ring","user_ids":["artem"]}
            """)
        #expect(event.canonicalJSON.text == expected)
    }

    @Test func spellingsOfTheSameEventShareADigest() throws {
        let minimal = #"{"id":"e","type":"call.ring","user_ids":["u"],"call":{"id":"c"},"caller":{"id":"j"}}"#
        let explicit =
            #"{"caller":{"id":"j","display_name":""},"ttl":"30s","user_ids":["u","u"],"#
            + #""call":{"type":"default","has_video":false,"id":"c","display_name":""},"type":"call.ring","id":"e"}"#
        #expect(try Fixtures.parse(minimal).digest == Fixtures.parse(explicit).digest)
    }

    @Test func aRetryArrivingLaterWithoutRingingAtIsTheSameEvent() throws {
        let body = #"{"id":"e","type":"call.ring","user_ids":["u"],"call":{"id":"c"},"caller":{"id":"j"}}"#
        let first = try Fixtures.parse(body, arrivedAt: Fixtures.now)
        let retry = try Fixtures.parse(body, arrivedAt: Fixtures.now.addingTimeInterval(3600))
        #expect(first.digest == retry.digest)
        #expect(first.ringingAt != retry.ringingAt)
        #expect(!first.canonicalJSON.text.contains("ringing_at"))
        #expect(first.fullJSON(receiver: first.userIDs[0]).text.contains("\"ringing_at\""))
    }

    @Test func anyChangeOfMeaningChangesTheDigest() throws {
        let base = try Fixtures.parse(Fixtures.fullBody).digest
        let changes = [
            ("\"John Doe\"", "\"Jon Doe\""), ("\"call.ring\"", "\"call.missed\""), ("\"30s\"", "\"20s\""),
            ("\"has_video\": false", "\"has_video\": true"), ("\"abc-123\"", "\"abc-124\""),
            ("\"ringing_at\": \"2026-04-10T14:30:00Z\"", "\"ringing_at\": \"2026-04-10T14:30:01Z\""),
            ("[\"artem\"]", "[\"artem\", \"bob\"]"),
        ]
        for (from, to) in changes {
            let changed = Fixtures.fullBody.replacingOccurrences(of: from, with: to)
            #expect(changed != Fixtures.fullBody, "the change \(from) → \(to) did not apply")
            #expect(try Fixtures.parse(changed).digest != base, "\(from) → \(to) kept the digest")
        }
    }

    @Test func theDigestIsSHA256HexOfTheCanonicalBytes() throws {
        let event = try Fixtures.parse(Fixtures.fullBody)
        #expect(event.digest.count == 64)
        #expect(event.digest.allSatisfy { $0.isHexDigit && !$0.isUppercase })
    }
}
