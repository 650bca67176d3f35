import Foundation
import RegistryCore
import Testing

@testable import PushEngine

/// A ring reads its users' devices in one statement, in no particular order
/// (`CallEventStore.claimReadingDevices`); it must list them as every other push does.
@Suite("Ring targets")
struct RingTargetsTests {
    static func device(_ user: String, _ provider: String, _ token: String) throws -> Device {
        let now = Date()
        return Device(
            userID: try UserID(user), provider: try ProviderName(provider),
            token: try PushToken(type: .fcm, raw: token), environment: nil, deviceID: nil, platform: nil,
            appVersion: nil, locale: nil, createdAt: now, updatedAt: now, lastSeenAt: now)
    }

    @Test func devicesReadTogetherAreListedByUserAsGivenThenProviderAndToken() throws {
        let read = [
            try Self.device("bob", "p2", "fcm-b2"), try Self.device("alice", "p2", "fcm-a3"),
            try Self.device("bob", "p1", "fcm-b1"), try Self.device("alice", "p1", "fcm-a2"),
            try Self.device("alice", "p1", "fcm-a1"),
        ]
        let users = [try UserID("bob"), try UserID("carol"), try UserID("alice")]

        let listed = Engine.targets(of: users, among: read).map { "\($0.userID.value)/\($0.token.value)" }

        #expect(listed == ["bob/fcm-b1", "bob/fcm-b2", "alice/fcm-a1", "alice/fcm-a2", "alice/fcm-a3"])
    }
}
