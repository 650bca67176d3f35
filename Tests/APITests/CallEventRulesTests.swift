import CallPush
import Foundation
import RegistryCore
import Testing

@testable import API
@testable import PushEngine
@testable import Store

/// The pure pieces around sending a call event: when sending stops, when a running event counts
/// as abandoned, and how a composed push becomes what the senders take.
@Suite("Call event rules")
struct CallEventRulesTests {
    static let arrivedAt = Date(timeIntervalSince1970: 1_775_831_400)

    static func event(_ type: CallEventType, ttl: String = "30s", ringingAt: Date? = nil) throws -> CallEvent {
        try CallEvent(
            id: "evt_1", type: type, userIDs: [try UserID("artem")], call: try CallDetails(id: "call_1"),
            caller: try Caller(id: "john_doe", displayName: "John Doe"), ringingAt: ringingAt,
            ttl: try CompactDuration(ttl), arrivedAt: arrivedAt)
    }

    @Test func aRingStopsAtItsExpiryAndAnythingElseWithin30Seconds() throws {
        let ring = try Self.event(.ring, ttl: "20s", ringingAt: Self.arrivedAt.addingTimeInterval(-5))
        #expect(CallEventSending.deadline(of: ring, now: Self.arrivedAt) == Self.arrivedAt.addingTimeInterval(15))
        let missed = try Self.event(.missed, ttl: "1d")
        #expect(CallEventSending.deadline(of: missed, now: Self.arrivedAt) == Self.arrivedAt.addingTimeInterval(30))
    }

    @Test func aRunningEventIsAbandonedOnlyWellAfterItsDeadline() {
        let deadline = Self.arrivedAt.addingTimeInterval(30)
        var row = StoredCallEvent(
            id: "evt_1", digest: String(repeating: "0", count: 64), type: "call.ring", state: .running,
            deadline: deadline, resultJSON: nil, jobID: nil, createdAt: Self.arrivedAt, finishedAt: nil)
        #expect(!row.isAbandoned(at: deadline.addingTimeInterval(StoredCallEvent.abandonMargin)))
        #expect(row.isAbandoned(at: deadline.addingTimeInterval(StoredCallEvent.abandonMargin + 1)))
        row.state = .done
        #expect(!row.isAbandoned(at: deadline.addingTimeInterval(3600)))
    }

    @Test func aRingForFCMIsAHighPriorityDataMessageWithWhatIsLeftOfTheTTL() throws {
        let composer = CallPushComposer(format: .stream, sealer: AESGCMPayloadSealer())
        let composed = try composer.compose(
            try Self.event(.ring), for: PushTarget(userID: try UserID("artem"), tokenType: .fcm),
            now: Self.arrivedAt.addingTimeInterval(2.25))
        guard case .fcm(let message)? = CallPushMessage.message(for: composed) else {
            Issue.record("not an FCM message: \(composed)")
            return
        }
        #expect(message.fields["token"] == nil)
        #expect(message.fields["android"] == .object(["priority": .string("high"), "ttl": .string("27.750s")]))
        #expect(message.fields["data"]?.objectValue?["type"] == .string("call.ring"))
        #expect(message.fields["notification"] == nil)
    }

    @Test func aRingForVoIPCarriesThePlansHeaders() throws {
        let composer = CallPushComposer(format: .stream, sealer: AESGCMPayloadSealer())
        let composed = try composer.compose(
            try Self.event(.ring),
            for: PushTarget(userID: try UserID("artem"), tokenType: .voip, bundleID: "com.example.app"),
            now: Self.arrivedAt)
        guard case .apns(let payload, let options)? = CallPushMessage.message(for: composed) else {
            Issue.record("not an APNs push: \(composed)")
            return
        }
        #expect(options.pushType == .voip && options.priority == 10)
        #expect(options.expiration == Self.arrivedAt.addingTimeInterval(30))
        #expect(String(decoding: payload(), as: UTF8.self).hasPrefix(#"{"stream":{"#))
        // Nothing to send is no message.
        let skipped = try composer.compose(
            try Self.event(.missed),
            for: PushTarget(userID: try UserID("artem"), tokenType: .voip, bundleID: "com.example.app"),
            now: Self.arrivedAt)
        #expect(CallPushMessage.message(for: skipped) == nil)
    }
}
