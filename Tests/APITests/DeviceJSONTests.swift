import Foundation
import NIOCore
import RegistryCore
import Testing

@testable import API

/// The hand-written JSON of the hottest answers must be byte for byte what JSONEncoder writes
/// with the server's settings for the same values.
@Suite("DeviceJSON")
struct DeviceJSONTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

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

    struct Listing: Encodable { let devices: [Device] }

    @Test func listingMatchesJSONEncoder() throws {
        let devices = try Self.devices()
        #expect(
            Data(DeviceJSON.devicesBody(devices).readableBytesView)
                == (try Self.encoder.encode(Listing(devices: devices))))
        #expect(Data(DeviceJSON.devicesBody([]).readableBytesView) == (try Self.encoder.encode(Listing(devices: []))))
    }

    @Test func registrationAnswerMatchesJSONEncoder() throws {
        let devices = try Self.devices()
        let cases: [(Device, String?, [String], [String])] = [
            (devices[0], nil, [], []), (devices[1], "old \"owner\"", ["aa"], ["b/1", "c\\2"]),
        ]
        for (device, previous, replaced, evicted) in cases {
            let outcome = RegistrationOutcome(
                device: device, result: previous == nil ? .created : .moved,
                previousUserID: try previous.map { try UserID($0) }, replacedTokens: replaced, evictedTokens: evicted)
            let expected = try Self.encoder.encode(RegistrationBody(outcome))
            #expect(Data(DeviceJSON.registrationBody(outcome).readableBytesView) == expected)
        }
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
