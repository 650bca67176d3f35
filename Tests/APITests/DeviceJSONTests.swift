import Foundation
import HTTPServer
import NIOCore
import RegistryCore
import Testing

@testable import API

/// Every JSON that holds a device comes from `DeviceJSON`. The expected texts are what
/// JSONEncoder wrote for the same values when each route still encoded its own (keys sorted,
/// `null` for an absent device field, optional registration fields left out, `/` unescaped), so
/// the contract's bytes did not change when the three writers became one.
@Suite("DeviceJSON")
struct DeviceJSONTests {
    static func devices() throws -> [Device] {
        let now = Date(timeIntervalSince1970: 1_795_000_000.123456)
        return [
            Device(
                userID: try UserID("plain"), provider: try ProviderName("ios"),
                token: try PushToken(type: .apns, raw: String(repeating: "ab", count: 32)), environment: .production,
                deviceID: nil, platform: nil, appVersion: nil, locale: nil, createdAt: now, updatedAt: now,
                lastSeenAt: now),
            Device(
                userID: try UserID("quote \" back \\ slash / é 🎉 end"), provider: try ProviderName("android"),
                token: try PushToken(type: .fcm, raw: "fcm:token_-.x"), environment: nil,
                deviceID: try DeviceID("id \"with\" quotes \\"), platform: try Platform("android"),
                appVersion: try AppVersion("2.0 (β)"), locale: try LocaleTag("de-CH"), createdAt: now,
                updatedAt: now.addingTimeInterval(1), lastSeenAt: now.addingTimeInterval(2),
                disabledReason: "BadDeviceToken", disabledAt: now.addingTimeInterval(3)),
        ]
    }

    static func outcomes() throws -> [RegistrationOutcome] {
        let devices = try devices()
        return [
            RegistrationOutcome(
                device: devices[0], result: .created, previousUserID: nil, replacedTokens: [], evictedTokens: []),
            RegistrationOutcome(
                device: devices[1], result: .moved, previousUserID: try UserID("old \"owner\""),
                replacedTokens: ["aa"], evictedTokens: ["b/1", "c\\2"]),
        ]
    }

    /// The two devices as JSON.
    static let plain =
        #"{"app_version":null,"created_at":"2026-11-18T11:06:40.123456Z","device_id":null,"disabled_at":null,""#
        + #"disabled_reason":null,"environment":"production","last_seen_at":"2026-11-18T11:06:40.123456Z","local"#
        + #"e":null,"platform":null,"provider":"ios","token":"ababababababababababababababababababababababababab"#
        + #"ababababababab","type":"apns","updated_at":"2026-11-18T11:06:40.123456Z","user_id":"plain"}"#
    static let escaped =
        #"{"app_version":"2.0 (β)","created_at":"2026-11-18T11:06:40.123456Z","device_id":"id \"with\" quotes "#
        + #"\\","disabled_at":"2026-11-18T11:06:43.123456Z","disabled_reason":"BadDeviceToken","environment":nul"#
        + #"l,"last_seen_at":"2026-11-18T11:06:42.123456Z","locale":"de-CH","platform":"android","provider":"and"#
        + #"roid","token":"fcm:token_-.x","type":"fcm","updated_at":"2026-11-18T11:06:41.123456Z","user_id":"quo"#
        + #"te \" back \\ slash / é 🎉 end"}"#
    static let created = #"{"device":"# + plain + #","evicted_tokens":[],"result":"created"}"#
    static let moved =
        #"{"device":"# + escaped
        + #","evicted_tokens":["b/1","c\\2"],"previous_user_id":"old \"owner\"","replaced_token":"aa","result":"moved"}"#

    @Test func listingsAndSingleDevices() throws {
        let devices = try Self.devices()
        #expect(
            String(buffer: DeviceJSON.devicesBody(devices)) == #"{"devices":["# + Self.plain + "," + Self.escaped + "]}"
        )
        #expect(String(buffer: DeviceJSON.devicesBody([])) == #"{"devices":[]}"#)
        #expect(
            String(buffer: DeviceJSON.pageBody(devices, nextCursor: ListCursor(lastID: 42)))
                == #"{"devices":["# + Self.plain + "," + Self.escaped + #"],"next_cursor":"djE6NDI"}"#)
        #expect(String(buffer: DeviceJSON.pageBody([], nextCursor: nil)) == #"{"devices":[],"next_cursor":null}"#)
        #expect(String(buffer: DeviceJSON.deviceBody(devices[1])) == #"{"device":"# + Self.escaped + "}")
        #expect(String(buffer: DeviceJSON.lines(devices)) == Self.plain + "\n" + Self.escaped + "\n")
    }

    @Test func registrationAnswers() throws {
        let outcomes = try Self.outcomes()
        #expect(String(buffer: DeviceJSON.registrationBody(outcomes[0])) == Self.created)
        #expect(String(buffer: DeviceJSON.registrationBody(outcomes[1])) == Self.moved)
        #expect(
            String(buffer: DeviceJSON.registrationsBody(outcomes))
                == #"{"registrations":["# + Self.created + "," + Self.moved + "]}")
    }

    @Test func batchItemsCarryTheirIndexAndStatusInSortedPlaces() throws {
        let outcomes = try Self.outcomes()
        let problem = Problem(status: .unprocessableEntity, detail: #"token: bad / "x""#)
        let body = try DeviceJSON.batchBody([
            .registered(index: 0, outcomes[0]), .failed(index: 1, problem), .registered(index: 2, outcomes[1]),
        ])
        let first = #"{"device":"# + Self.plain + #","evicted_tokens":[],"index":0,"result":"created","status":201}"#
        let second =
            #"{"error":{"detail":"token: bad / \"x\"","status":422,"title":"Unprocessable Entity","type":"about:blank"},"#
            + #""index":1,"status":422}"#
        let third =
            #"{"device":"# + Self.escaped + #","evicted_tokens":["b/1","c\\2"],"index":2,"#
            + #""previous_user_id":"old \"owner\"","replaced_token":"aa","result":"moved","status":200}"#
        #expect(String(buffer: body) == #"{"results":["# + first + "," + second + "," + third + "]}")
    }

    @Test func importSuccessLinesAreWhatJSONEncoderWrites() throws {
        for (line, result) in [(1, RegistrationResult.created), (1_000_000, .unchanged), (42, .moved)] {
            var buffer = ByteBuffer()
            DeviceImport.ResultLine.writeSuccess(line: line, result: result, to: &buffer)
            let encoded = try NDJSON.lines([
                DeviceImport.ResultLine(
                    line: line, status: result == .created ? 201 : 200, result: result.rawValue, error: nil)
            ])
            #expect(String(buffer: buffer) == String(buffer: encoded))
        }
    }
}
