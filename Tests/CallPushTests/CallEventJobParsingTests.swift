import Foundation
import RegistryCore
import Testing

@testable import CallPush

/// Call events sent as push jobs: which bodies are jobs, how their users may be listed, what a
/// job keeps of the event, and the digest that makes a JSON body and an NDJSON stream one event.
@Suite struct CallEventJobParsingTests {
    static func json(_ text: String) -> JSONValue { try! JSONParser.parse(text) }

    static func body(users: Int, extra: String = "") -> JSONValue {
        let list = (0..<users).map { "\"u\($0)\"" }.joined(separator: ",")
        return json(
            #"{"id":"e","type":"call.ring","user_ids":[\#(list)],"call":{"id":"c"},"caller":{"id":"j"}\#(extra)}"#)
    }

    @Test func moreThanAThousandUsersOrAnAsyncOtherThanFalseMakeAJob() {
        #expect(!CallEvent.isJob(Self.body(users: CallEvent.maxUsers)))
        #expect(CallEvent.isJob(Self.body(users: CallEvent.maxUsers + 1)))
        #expect(CallEvent.isJob(Self.body(users: 1, extra: #","async":true"#)))
        #expect(CallEvent.isJob(Self.body(users: 1, extra: #","async":"yes""#)))
        #expect(!CallEvent.isJob(Self.body(users: 1, extra: #","async":false"#)))
        #expect(!CallEvent.isJob(Self.body(users: 1, extra: #","async":null"#)))
        #expect(!CallEvent.isJob(Self.json("[1]")))
    }

    @Test func eachListingHasItsOwnLimitAndAsyncMustBeABoolean() throws {
        let many = Self.body(users: CallEvent.maxUsers + 1)
        #expect(throws: ValidationErrors.self) { try CallEvent.parse(many, arrivedAt: Fixtures.now) }
        #expect(try CallEvent.parse(many, arrivedAt: Fixtures.now, users: .job).userIDs.count == 1001)
        #expect(
            try CallEvent.parse(Self.body(users: 2, extra: #","async":false"#), arrivedAt: Fixtures.now).userIDs.count
                == 2)
        do {
            _ = try CallEvent.parse(Self.body(users: 2, extra: #","async":1"#), arrivedAt: Fixtures.now, users: .job)
            Issue.record("a numeric async was taken")
        } catch {
            #expect(error.errors.map(\.field) == ["async"])
        }
        // A streamed event's users follow it: listing them in it too is refused.
        do {
            _ = try CallEvent.parse(Self.body(users: 1), arrivedAt: Fixtures.now, users: .streamed)
            Issue.record("user_ids were taken in a streamed header")
        } catch {
            #expect(error.errors.map(\.field) == ["user_ids"])
        }
        // A job keeps repeats as given (its recipients drop them): its digest must match a stream's.
        let repeated = Self.json(
            #"{"id":"e","type":"call.ring","user_ids":["a","b","a"],"call":{"id":"c"},"caller":{"id":"j"}}"#)
        #expect(
            try CallEvent.parse(repeated, arrivedAt: Fixtures.now, users: .job).userIDs.map(\.value) == ["a", "b", "a"])
        #expect(try CallEvent.parse(repeated, arrivedAt: Fixtures.now).userIDs.map(\.value) == ["a", "b"])
        let header = Self.json(#"{"id":"e","type":"call.ring","call":{"id":"c"},"caller":{"id":"j"}}"#)
        #expect(try CallEvent.parse(header, arrivedAt: Fixtures.now, users: .streamed).userIDs.isEmpty)
    }

    @Test func aJobKeepsTheEventWithoutItsUsersAndReadsItBackTheSame() throws {
        let event = Fixtures.event(.ring)
        let kept = String(decoding: event.jobJSON.bytes, as: UTF8.self)
        #expect(!kept.contains("user_ids"))
        // Read back long after it arrived, or on a clock behind: the same event, users aside.
        let back = try CallEvent.parse(Self.json(kept), arrivedAt: .distantFuture, users: .streamed)
        #expect(back.userIDs.isEmpty)
        #expect(back.jobJSON.bytes == event.jobJSON.bytes)
        #expect(back.expiresAt == event.expiresAt)
    }

    @Test func theJobDigestIsTheSameHoweverTheUsersArriveAndNeverTheAnswersDigest() throws {
        let event = try CallEvent.parse(Self.body(users: 5), arrivedAt: Fixtures.now, users: .job)
        let whole = CallEventJobDigest(event)
        whole.add(event.userIDs)
        let streamed = CallEventJobDigest(event)
        streamed.add(event.userIDs.prefix(2))
        streamed.add([UserID]())
        streamed.add(event.userIDs.dropFirst(2))
        let wholeDigest = whole.finish()
        #expect(streamed.finish() == wholeDigest)
        #expect(wholeDigest != event.digest)
        let fewer = CallEventJobDigest(event)
        fewer.add(event.userIDs.dropLast())
        #expect(fewer.finish() != wholeDigest)
        // Joined differently, the same characters are other users.
        let split = CallEventJobDigest(event)
        split.add([try UserID("ab")])
        let joined = CallEventJobDigest(event)
        joined.add([try UserID("a"), try UserID("b")])
        #expect(split.finish() != joined.finish())
    }
}
