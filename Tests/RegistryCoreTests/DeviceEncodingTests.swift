import Foundation
import Testing

@testable import RegistryCore

@Suite struct DeviceEncodingTests {
    @Test func encodesSnakeCaseWithRFC3339Dates() throws {
        let seen = Date(timeIntervalSince1970: 1_795_317_840.5)
        let device = Device(
            userID: try UserID("u1"), provider: try ProviderName("ios"),
            token: try PushToken(type: .voip, raw: Fixtures.voipToken),
            environment: .sandbox, deviceID: nil, platform: try Platform("ios"), appVersion: nil, locale: nil,
            createdAt: Date(timeIntervalSince1970: 0), updatedAt: seen, lastSeenAt: seen)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try #require(
            try JSONSerialization.jsonObject(with: encoder.encode(device)) as? [String: Any])
        #expect(json["user_id"] as? String == "u1")
        #expect(json["type"] as? String == "voip")
        #expect(json["token"] as? String == Fixtures.voipToken)
        #expect(json["environment"] as? String == "sandbox")
        #expect(json["created_at"] as? String == "1970-01-01T00:00:00.000000Z")
        #expect(json["last_seen_at"] as? String == "2026-11-22T03:24:00.500000Z")
        #expect(json["device_id"] is NSNull)
        #expect(json["disabled_at"] is NSNull)
        #expect(
            Set(json.keys) == [
                "user_id", "provider", "type", "token", "environment", "device_id", "platform", "app_version", "locale",
                "created_at", "updated_at", "last_seen_at", "disabled_reason", "disabled_at",
            ])
    }

    @Test func resultsAndErrorsHaveStableNames() {
        #expect(RegistrationResult.allCases.map(\.rawValue) == ["created", "unchanged", "updated", "moved"])
        #expect(FeedbackAction.keptNewer.rawValue == "kept_newer")
        #expect(RegistryError.notFound("device").code == "not_found")
        #expect(RegistryError.unknownProvider(field: "provider", name: "x").fieldErrors.map(\.field) == ["provider"])
        #expect(
            RegistryError(ValidationErrors([ValidationError(field: "a", message: "b")]))
                == .validation([ValidationError(field: "a", message: "b")]))
    }
}
