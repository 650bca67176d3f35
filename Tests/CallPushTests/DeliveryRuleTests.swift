import Foundation
import PushRules
import RegistryCore
import Testing

@testable import CallPush

@Suite struct DeliveryRuleTests {
    enum Expected: Equatable {
        case voip
        case alert
        case data
        case skipped
    }

    /// The seeds' rule, every event type against every token type.
    @Test(arguments: CallEventType.allCases)
    func whichTokenGetsWhichPush(type: CallEventType) {
        let table: [TokenType: Expected] =
            type.isRinging
            ? [.voip: .voip, .apns: .skipped, .fcm: .data] : [.voip: .skipped, .apns: .alert, .fcm: .data]
        let event = Fixtures.event(type)
        for (token, expected) in table {
            let decision = DeliveryRule.decide(event, tokenType: token, bundleID: Fixtures.bundleID, now: Fixtures.now)
            switch (decision, expected) {
            case (.apns(let options), .voip):
                #expect(options.pushType == .voip)
            case (.apns(let options), .alert):
                #expect(options.pushType == .alert)
            case (.fcm, .data), (.skipped, .skipped):
                break
            default:
                Issue.record("\(type.rawValue) to a \(token.rawValue) token: \(decision), expected \(expected)")
            }
        }
    }

    @Test func aRingToAVoIPTokenCarriesPushKitHeaders() throws {
        let decision = DeliveryRule.decide(
            Fixtures.event(.ring), tokenType: .voip, bundleID: Fixtures.bundleID, now: Fixtures.now)
        let expiration = Fixtures.ringingAt.addingTimeInterval(30)
        #expect(decision == .apns(try APNsSendOptions(pushType: .voip, priority: 10, expiration: expiration)))
        #expect(decision.kind == .voip)
    }

    @Test func aNotificationToARemoteTokenIsAnAlertOnTheBundleTopic() throws {
        let decision = DeliveryRule.decide(
            Fixtures.event(.missed), tokenType: .apns, bundleID: Fixtures.bundleID, now: Fixtures.now)
        let expiration = Fixtures.ringingAt.addingTimeInterval(30)
        #expect(
            decision
                == .apns(
                    try APNsSendOptions(
                        pushType: .alert, priority: 10, expiration: expiration,
                        collapseID: NameBasedUUID.eventUUID(Fixtures.event(.missed).id))))
    }

    @Test func androidGetsWhatIsLeftOfTheTTL() {
        let decide = { (elapsed: TimeInterval) in
            DeliveryRule.decide(
                Fixtures.event(.ring), tokenType: .fcm, bundleID: nil,
                now: Fixtures.ringingAt.addingTimeInterval(elapsed))
        }
        #expect(decide(0) == .fcm(ttl: .seconds(30)))
        #expect(decide(2) == .fcm(ttl: .seconds(28)))
        #expect(decide(29.75) == .fcm(ttl: .milliseconds(250)))
        // A ringing_at slightly ahead of our clock never stretches the ttl.
        #expect(decide(-5) == .fcm(ttl: .seconds(30)))
    }

    @Test func aRingWhoseTTLHasRunOutIsExpiredOnEveryToken() {
        let event = Fixtures.event(.ring)
        for token in [TokenType.voip, .fcm] {
            for elapsed in [30.0, 31, 3600] {
                let decision = DeliveryRule.decide(
                    event, tokenType: token, bundleID: Fixtures.bundleID,
                    now: Fixtures.ringingAt.addingTimeInterval(elapsed))
                guard case .expired(let reason) = decision else {
                    Issue.record("\(token) after \(elapsed) s: \(decision)")
                    continue
                }
                #expect(reason.contains("has passed"))
                #expect(decision.kind == nil)
            }
        }
        let justInTime = DeliveryRule.decide(
            event, tokenType: .voip, bundleID: Fixtures.bundleID, now: Fixtures.ringingAt.addingTimeInterval(29.9))
        #expect(justInTime.kind == .voip)
    }

    @Test func aUserWithOnlyAVoIPTokenIsSkippedForANotificationAndToldWhy() {
        let decision = DeliveryRule.decide(
            Fixtures.event(.missed), tokenType: .voip, bundleID: Fixtures.bundleID, now: Fixtures.now)
        guard case .skipped(let reason) = decision else {
            Issue.record("a VoIP token got \(decision)")
            return
        }
        #expect(reason.contains("VoIP token only receives rings"))
        #expect(reason.contains("call.missed"))
    }

    @Test func skippingWinsOverExpiry() {
        let late = Fixtures.ringingAt.addingTimeInterval(600)
        let decision = DeliveryRule.decide(
            Fixtures.event(.missed), tokenType: .voip, bundleID: Fixtures.bundleID, now: late)
        guard case .skipped = decision else {
            Issue.record("expected skipped, got \(decision)")
            return
        }
    }

    @Test func theComposerRendersNothingWhenNothingIsSent() throws {
        let late = Fixtures.ringingAt.addingTimeInterval(31)
        let composed = try Fixtures.composer(.stream).compose(Fixtures.event(.ring), for: Fixtures.android, now: late)
        #expect(composed.payload == nil)
        let skipped = try Fixtures.composer(.stream).compose(
            Fixtures.event(.ring), for: Fixtures.iOSRemote, now: Fixtures.now)
        #expect(skipped.payload == nil)
    }
}
