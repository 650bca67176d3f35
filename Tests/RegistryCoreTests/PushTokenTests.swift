import Testing

@testable import RegistryCore

@Suite struct PushTokenTests {
    @Test(arguments: [TokenType.apns, .voip])
    func apnsTokensAreNormalisedToLowercase(type: TokenType) throws {
        let token = try PushToken(type: type, raw: Fixtures.remoteToken.uppercased())
        #expect(token.value == Fixtures.remoteToken)
        #expect(token.type == type)
    }

    @Test(arguments: [32, 64, 160, 200, 1024])
    func apnsTokenLengthsAreVariable(length: Int) throws {
        let raw = String(repeating: "ab", count: length / 2)
        #expect(try PushToken(type: .apns, raw: raw).value == raw)
    }

    static let hexMessage = "must be 32–1024 hexadecimal characters with an even length"

    @Test(arguments: [
        "",
        String(repeating: "a", count: 30),  // too short
        String(repeating: "a", count: 65),  // odd
        String(repeating: "a", count: 1026),  // too long
        String(repeating: "g", count: 64),  // not hex
        String(repeating: "ab", count: 31) + " a",  // space
        "0x" + String(repeating: "ab", count: 31),
    ])
    func apnsTokenRejects(raw: String) {
        #expect(throws: ValidationError(field: "token", message: Self.hexMessage)) {
            try PushToken(type: .voip, raw: raw)
        }
    }

    @Test func nsDataDescriptionIsExplained() throws {
        let modern = "{length=32,bytes=0x740f4707bebcf74f...462c7eaf61bb78ad}"
        let spaced = "{length = 32, bytes = 0xd3d997af 967d1f43 ... 14af515f }"
        let legacy = "<740f4707 bebcf74f 9b7c25d4 8e335894 5f6aa01d a5ddb387 462c7eaf 61bb78ad>"
        for raw in [modern, spaced, legacy] {
            do {
                _ = try PushToken(type: .apns, raw: raw)
                Issue.record("accepted \(raw)")
            } catch {
                #expect(error.field == "token")
                #expect(error.message.contains("NSData.description"))
                #expect(error.message.contains("%02x"))
            }
        }
    }

    @Test(arguments: [Fixtures.fcmToken, "a", "abc-DEF_123:xyz.9", String(repeating: "x", count: 4096)])
    func fcmTokenAccepts(raw: String) throws {
        #expect(try PushToken(type: .fcm, raw: raw).value == raw)
    }

    @Test(arguments: ["", "has space", "slash/", "plus+", "é", String(repeating: "x", count: 4097)])
    func fcmTokenRejects(raw: String) {
        #expect(throws: ValidationError.self) { try PushToken(type: .fcm, raw: raw) }
    }

    @Test func redactionKeepsEightCharacters() throws {
        let token = try PushToken(type: .apns, raw: Fixtures.remoteToken)
        #expect(token.redacted == "740f4707…")
        #expect("\(token)" == "apns:740f4707…")
        #expect(PushToken.redacted("short") == "short")
    }

    @Test func tokensOfDifferentTypesDiffer() throws {
        #expect(
            try PushToken(type: .apns, raw: Fixtures.remoteToken) != PushToken(type: .voip, raw: Fixtures.remoteToken))
    }
}
