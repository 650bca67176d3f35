import Foundation
import Testing

@testable import RegistryCore

@Suite struct IdentifierTests {
    @Test(arguments: [
        "u", "user_01h2xcejqtf2nbrexx3vqjhp42", "alice@example.com", "Zoë 🎉", String(repeating: "a", count: 255),
    ])
    func userIDAccepts(raw: String) throws {
        #expect(try UserID(raw).value == raw)
    }

    @Test(arguments: [
        "", String(repeating: "a", count: 256), String(repeating: "é", count: 128), "a\u{0}b", "tab\there", "del\u{7F}",
        "c1\u{85}", "   ", "\u{3000}",
    ])
    func userIDRejects(raw: String) {
        #expect(throws: ValidationError.self) { try UserID(raw) }
        do { _ = try UserID(raw) } catch { #expect(error.field == "user_id") }
    }

    @Test func asciiSetsHoldOnlyTheirOwnASCIICharacters() {
        #expect(ASCIISet.hexDigits.containsAll("0123456789abcdefABCDEF"))
        #expect(!ASCIISet.hexDigits.containsAll("0g"))
        #expect(!ASCIISet.letters.containsAll("é") && !ASCIISet.letters.contains(0xFF))
        #expect(!ASCIISet.alphanumerics.union("-").containsAll("a_b"))
        #expect(ASCIISet.fcmToken.containsAll("a-b_c:d.e") && ASCIISet.fcmToken.containsAll(""))
        #expect(!ASCIISet.fcmToken.containsAll("a b") && !ASCIISet.fcmToken.containsAll("a\u{7F}"))
    }

    @Test func userIDIsNotTrimmedOrFolded() throws {
        #expect(try UserID(" Alice").value == " Alice")
        #expect(try UserID("Alice") != UserID("alice"))
    }

    @Test(arguments: ["ios", "ios-prod", "a", "0", "android.fcm_v1", String(repeating: "a", count: 63)])
    func providerNameAccepts(raw: String) throws {
        #expect(try ProviderName(raw).value == raw)
    }

    @Test(arguments: [
        "", "-ios", ".ios", "_x", "iOS", "ios prod", "ios/prod", "ïos", String(repeating: "a", count: 64),
    ])
    func providerNameRejects(raw: String) {
        #expect(throws: ValidationError(field: "provider", message: Self.providerMessage)) { try ProviderName(raw) }
    }

    @Test func providerNameReportsTheGivenField() {
        #expect(throws: ValidationError(field: "name", message: Self.providerMessage)) {
            try ProviderName("Bad", field: "name")
        }
    }

    static let providerMessage =
        "must be 1–63 characters of lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"

    @Test func enumsParseExactWireNames() throws {
        #expect(try TokenType("voip") == .voip)
        #expect(try TokenType("voip").service == .apns)
        #expect(try TokenType("apns").service == .apns)
        #expect(try TokenType("fcm").service == .fcm)
        #expect(try PushService("fcm") == .fcm)
        #expect(try APNsEnvironment("sandbox") == .sandbox)
        #expect(throws: ValidationError(field: "type", message: "must be one of: apns, voip, fcm")) {
            try TokenType("APNS")
        }
        #expect(throws: ValidationError(field: "service", message: "must be one of: apns, fcm")) {
            try PushService("gcm")
        }
        #expect(throws: ValidationError(field: "environment", message: "must be one of: production, sandbox")) {
            try APNsEnvironment("development")
        }
    }

    @Test func optionalLabels() throws {
        #expect(try DeviceID("urn:uuid:6b2d1c2e-3f4a-4b5c-8d9e-0f1a2b3c4d5e").value.hasPrefix("urn:uuid"))
        #expect(throws: ValidationError.self) { try DeviceID(String(repeating: "x", count: 129)) }
        #expect(throws: ValidationError(field: "device_id", message: "must not contain control characters")) {
            try DeviceID("a\nb")
        }
        #expect(try Platform("ios").value == "ios")
        #expect(throws: ValidationError(field: "platform", message: "must be 1–32 characters long")) {
            try Platform(String(repeating: "x", count: 33))
        }
        #expect(try AppVersion("6.2.1 (1234)").value == "6.2.1 (1234)")
        #expect(throws: ValidationError(field: "app_version", message: "must be 1–64 characters long")) {
            try AppVersion("")
        }
        #expect(throws: ValidationError(field: "app_version", message: "must not be only whitespace")) {
            try AppVersion("  ")
        }
    }

    /// JSON Schema's maxLength counts code points; so does the server, or a client that trusts the
    /// contract has a 32-character platform refused, or one the contract forbids accepted.
    @Test func lengthsCountCodePointsNotGraphemeClusters() throws {
        let thumbsUp = "\u{1F44D}\u{1F3FD}"  // one grapheme cluster, two code points
        #expect(try Platform(String(repeating: thumbsUp, count: 16)).value.unicodeScalars.count == 32)
        #expect(throws: ValidationError(field: "platform", message: "must be 1–32 characters long")) {
            try Platform(String(repeating: thumbsUp, count: 17))
        }
        #expect(throws: ValidationError.self) { try AppVersion(String(repeating: "e\u{301}", count: 33)) }
    }

    @Test(arguments: ["en", "pt-BR", "en_US", "zh-Hant-TW", "sr_Latn_RS"])
    func localeAccepts(raw: String) throws {
        #expect(try LocaleTag(raw).value == raw)
    }

    @Test(arguments: ["", "1en", "en US", "en.US", "fr-ÇA", String(repeating: "a", count: 36)])
    func localeRejects(raw: String) {
        #expect(throws: ValidationError.self) { try LocaleTag(raw) }
    }

    @Test func validatedTextCodableGoesThroughValidation() throws {
        let encoded = try JSONEncoder().encode([try ProviderName("ios")])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["ios"]"#)
        #expect(try JSONDecoder().decode([ProviderName].self, from: encoded) == [try ProviderName("ios")])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([ProviderName].self, from: Data(#"["IOS"]"#.utf8))
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([UserID].self, from: Data(#"[""]"#.utf8)) }
    }

    @Test func apiKeyScopes() throws {
        let readOnly: Set<APIKeyScope> = [.devicesRead]
        #expect(readOnly.allows(.devicesRead))
        #expect(!readOnly.allows(.devicesWrite))
        #expect(!readOnly.allows(.admin))
        let admin: Set<APIKeyScope> = [.admin]
        #expect(APIKeyScope.allCases.allSatisfy { admin.allows($0) })
        #expect(!Set<APIKeyScope>().allows(.devicesRead))
        #expect(try APIKeyScope("devices:write") == .devicesWrite)
        #expect(throws: ValidationError.self) { try APIKeyScope("devices") }
    }
}
